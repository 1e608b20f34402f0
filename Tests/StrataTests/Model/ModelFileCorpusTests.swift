import Foundation
import Strata
import StrataTestSupport
import Testing

/// Real Xcode model files from public projects (`../shared/testdata/xcdatamodels`, origins in
/// its SOURCES.md), read in place.
@Suite("Model files: the real corpus")
struct ModelFileCorpusTests {
    init() { ModelFileCorpus.registerTransformers() }

    static let bundles = ModelFileCorpus.allModels()
    static let allVersions: [URL] = bundles.flatMap { $0.pathExtension == "xcdatamodeld" ? ModelFileCorpus.versions(of: $0) : [$0] }

    @Test("the corpus is where SOURCES.md says and holds every model")
    func corpusIsThere() {
        // SOURCES.md: 9 public models and 2 Strata samples, 38 versions in all.
        #expect(Self.bundles.count == 11)
        #expect(Self.allVersions.count == 38)
    }

    // Core Data fact (NSManagedObjectModel, Xcode's versioned models): a .xcdatamodeld loads its
    // current version, the one .xccurrentversion names.
    @Test("every bundle loads its current version", arguments: bundles)
    func bundleLoads(_ url: URL) throws {
        let model = try ManagedObjectModel(contentsOf: url)
        #expect(!model.entities.isEmpty, "\(url.lastPathComponent)")
        try model.checkModel()
    }

    @Test("every version of every bundle loads", arguments: allVersions)
    func versionLoads(_ url: URL) throws {
        let model = try ManagedObjectModel(contentsOf: url)
        #expect(!model.entities.isEmpty)
        try model.checkModel()
    }

    // Each model can back a store: one object of every concrete entity is inserted and saved.
    @Test("every version backs an in-memory and a SQLite store", arguments: allVersions, TestStack.Kind.allCases)
    func versionBacksStores(_ url: URL, kind: TestStack.Kind) throws {
        let model = try ManagedObjectModel(contentsOf: url)
        let stack = try TestStack(model: model, kind: kind, recordsSQL: false)
        let saved = try ModelFiller.insertOneOfEach(into: stack)
        #expect(saved == model.entities.filter { !$0.isAbstract }.count)
    }

    // Moody (objc.io): six versions, .xccurrentversion names "Moody 6"; v2 renamed
    // remoteIdentifier → remoteID with a renaming identifier (elementID).
    @Test("Moody: the current version, its identifier, renaming identifier and constraints")
    func moody() throws {
        let model = try ManagedObjectModel(contentsOf: ModelFileCorpus.url("core-data/Moody.xcdatamodeld"))
        #expect(model.versionIdentifiers == ["6"])
        #expect(Set(model.entitiesByName.keys) == ["Continent", "Country", "Mood"])
        let remoteID = try #require(model.entitiesByName["Mood"]?.attributesByName["remoteID"])
        #expect(remoteID.renamingIdentifier == "remoteIdentifier")
        #expect(remoteID.isIndexed && remoteID.isOptional && remoteID.type == .string)
        #expect(model.entitiesByName["Country"]?.uniquenessConstraints == [["numericISO3166Code", "uniquenessDummy"]])
        let first = try ManagedObjectModel(contentsOf: ModelFileCorpus.url("core-data/Moody.xcdatamodeld/Moody.xcdatamodel"))
        #expect(first.versionIdentifiers == ["1"])
        #expect(first.entitiesByName["GeographicRegion"]?.isAbstract == true)
        #expect(first.entitiesByName["Country"]?.superentity?.name == "GeographicRegion")
    }

    // Reading List: books_18 is current; external storage, regular expression, ordered to-many,
    // a versionHashModifier on Book.
    @Test("ReadingList: books_18 with its attributes and relationships")
    func readingList() throws {
        let model = try ManagedObjectModel(contentsOf: ModelFileCorpus.url("ReadingList/books.xcdatamodeld"))
        #expect(Set(model.entitiesByName.keys) == ["Book", "List", "ListItem", "Subject"])
        let book = try #require(model.entitiesByName["Book"])
        #expect(book.versionHashModifier == "authorTransformer")
        #expect(book.attributesByName["coverImage"]?.allowsExternalBinaryDataStorage == true)
        #expect(book.attributesByName["coverImage"]?.type == .binaryData)
        #expect(book.attributesByName["languageCode"]?.minLength == 2 && book.attributesByName["languageCode"]?.maxLength == 2)
        #expect(book.attributesByName["rating"]?.minValue as? Int16 == 1 && book.attributesByName["rating"]?.maxValue as? Int16 == 10)
        #expect(book.attributesByName["readState"]?.defaultValue as? Int16 == 2)
        #expect(book.attributesByName["authors"]?.valueTransformerName == "AuthorTransformer")
        #expect(book.relationshipsByName["listItems"]?.deleteRule == .cascade)
        #expect(book.uniquenessConstraints.contains { $0.contains("googleBooksId") })
        #expect(book.indexes.contains { $0.name == "isbn" && $0.elements.map(\.propertyName) == ["isbn13"] })
        // books_12: an ISBN pattern and an ordered to-many (List.books).
        let twelve = try ManagedObjectModel(contentsOf: ModelFileCorpus.url("ReadingList/books.xcdatamodeld/books_12.xcdatamodel"))
        #expect(twelve.entitiesByName["Book"]?.attributesByName["isbn13"]?.regularExpression == "\\d{13}")
        let books = try #require(twelve.entitiesByName["List"]?.relationshipsByName["books"])
        #expect(books.isOrdered && books.isToMany && books.inverseName == "lists")
        let oldest = try ManagedObjectModel(contentsOf: ModelFileCorpus.url("ReadingList/books.xcdatamodeld/books_5.xcdatamodel"))
        #expect(oldest.entities.count == 2)
    }

    // CoreDataPlus: .xccurrentversion names the FIRST version, not the newest.
    @Test("CoreDataPlus: the current version is the one named, not the newest")
    func coreDataPlusCurrentVersion() throws {
        let current = try ManagedObjectModel(contentsOf: ModelFileCorpus.url("CoreDataPlus/SampleModel.xcdatamodeld"))
        let first = try ManagedObjectModel(contentsOf: ModelFileCorpus.url("CoreDataPlus/SampleModel.xcdatamodeld/SampleModel.xcdatamodel"))
        let third = try ManagedObjectModel(contentsOf: ModelFileCorpus.url("CoreDataPlus/SampleModel.xcdatamodeld/SampleModel3.xcdatamodel"))
        #expect(current.versionHash == first.versionHash)
        #expect(current.entities.count == 4)
        #expect(third.entities.count == 5)
        #expect(third.versionChecksum != first.versionChecksum)
        #expect(third.entities.contains { $0.renamingIdentifier == "ExpensiveSportCar" })
    }

    // mogenerator: fetch request templates with substitution variables, userInfo with dots and
    // escaped quotes, an ordered to-many with inverse.
    @Test("mogenerator: templates with $variables and userInfo")
    func mogenerator() throws {
        let model = try ManagedObjectModel(contentsOf: ModelFileCorpus.url("mogenerator/test.xcdatamodel"))
        #expect(model.fetchRequestTemplateNames == ["allHumans", "byHumanName", "byParent", "byParentName", "oneByHumanName"])
        let request = try model.fetchRequestFromTemplate(withName: "byHumanName", substitutionVariables: ["humanName": "Ann"])
        #expect(request.entityName == "Human")
        #expect(request.predicate == ObjectPredicate(format: "humanName == %@", "Ann"))
        let human = try #require(model.entitiesByName["Human"])
        #expect(human.userInfo["key with.dots..."] as? String == "value with \"quotes\"")
        #expect(human.attributesByName["age"]?.userInfo["mogenerator.readonly"] as? String == "true")
        #expect(human.attributesByName["age"]?.minValue as? Int16 == 0)
        let ordered = try #require(model.entitiesByName["Parent"]?.relationshipsByName["orderedChildren"])
        #expect(ordered.isOrdered && ordered.isToMany && ordered.inverseName == "parent" && ordered.deleteRule == .cascade)
        #expect(model.entitiesByName["Child"]?.superentity === human)
    }

    // CoreStore: configurations; a fetched property whose request has no predicate.
    @Test("CoreStore: configurations and a fetched property")
    func coreStore() throws {
        let model = try ManagedObjectModel(contentsOf: ModelFileCorpus.url("CoreStore/Model.xcdatamodeld"))
        #expect(model.configurations == ["Config1", "Config2"])
        #expect(model.entities(forConfigurationName: "Config1").map(\.name) == ["TestEntity1AAA"])
        let demo = try ManagedObjectModel(contentsOf: ModelFileCorpus.url("CoreStore/Classic.ColorsDemo.xcdatamodeld"))
        let fetched = try #require(demo.entitiesByName["Palette"]?.propertiesByName["testFetchProperty"] as? FetchedPropertyDescription)
        #expect(fetched.fetchRequest?.entityName == "Palette")
        #expect(fetched.fetchRequest?.predicate == nil)
    }

    // FreeCoreData (Xcode 16 format): abstract Person with two sub-entities; "No Action" rules.
    @Test("FreeCoreData: abstract parent, many-to-many, No Action")
    func freeCoreData() throws {
        let model = try ManagedObjectModel(contentsOf: ModelFileCorpus.url("FreeCoreData/EmployeeDirectory.xcdatamodeld"))
        let person = try #require(model.entitiesByName["Person"])
        #expect(person.isAbstract)
        #expect(Set(person.subentities.map(\.name)) == ["Contractor", "Employee"])
        let members = try #require(model.entitiesByName["Project"]?.relationshipsByName["members"])
        #expect(members.deleteRule == .noAction && members.isToMany && members.inverseRelationship?.isToMany == true)
        #expect(person.representedClassName == "EDPerson")
    }

    // UnCloudNotes: representedClassName as ".Note" maps to the class named Note.
    @Test("UnCloudNotes: representedClassName maps to the given Swift classes")
    func classMapping() throws {
        let url = ModelFileCorpus.url("UnCloudNotes/UnCloudNotesDataModel.xcdatamodeld")
        let model = try ManagedObjectModel(contentsOf: url, managedObjectClasses: [Note.self, ImageAttachment.self])
        #expect(model.entitiesByName["Note"]?.managedObjectClass == Note.self)
        #expect(model.entitiesByName["ImageAttachment"]?.managedObjectClass == ImageAttachment.self)
        #expect(model.entitiesByName["Attachment"]?.managedObjectClass == ManagedObject.self)
        let stack = try TestStack(model: model, kind: .inMemory)
        let context = stack.newContext()
        try context.performAndWait {
            let note = try EntityDescription.insertNewObject(forEntityName: "Note", into: context)
            #expect(note is Note)
        }
    }
}

final class Note: ManagedObject {}
final class ImageAttachment: ManagedObject {}
