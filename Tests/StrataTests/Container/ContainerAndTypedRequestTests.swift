import Foundation
import Strata
import StrataLocks
import StrataTestSupport
import Testing

/// A bow tie, as in the Core Data notes the seeds collect (`Bowtie` entity, `name` and
/// `lastWorn`); the class name differs from the entity name on purpose (Apple's model editor
/// suggests an `MO` suffix), so requests find the entity by class.
final class BowtieMO: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("lastWorn") var lastWorn: Date?
}

/// A class that declares its own `fetchRequest()`, as code Xcode generated for Core Data does.
final class GeneratedVenue: ManagedObject {
    @Attribute("name") var name: String

    class func fetchRequest() -> FetchRequest<GeneratedVenue> {
        FetchRequest<GeneratedVenue>(entityName: "Venue")
    }
}

/// The container subclass of the seed notes ("子类化持久化容器"): a place for the app's Core
/// Data helpers, here the `saveContext` helper, with overrides of the default folder and of
/// `newBackgroundContext()`. Swift asks every subclass of a class whose `Sendable` conformance
/// is unchecked to restate it (a warning otherwise), as for Core Data's container.
final class SeedContainer: PersistentContainer, @unchecked Sendable {
    // @unchecked Sendable: no state of its own beyond the base class's.
    /// The folder `defaultDirectoryURL()` returns (a class method reads class-level state).
    static let testFolder = StrataLock(FileManager.default.temporaryDirectory)

    override class func defaultDirectoryURL() -> URL { testFolder.withLock { $0 } }

    /// Saves `backgroundContext`, or the view context, when it has changes (the seed's helper,
    /// run on the context's queue).
    func saveContext(backgroundContext: ManagedObjectContext? = nil) throws {
        let context = backgroundContext ?? viewContext
        try context.performAndWait {
            guard context.hasChanges else { return }
            try context.save()
        }
    }

    /// Background contexts of this app carry a name.
    override func newBackgroundContext() -> ManagedObjectContext {
        let context = super.newBackgroundContext()
        context.name = "seed background"
        return context
    }
}

/// Typed requests (`Person.fetchRequest()`), the container as Core Data code uses it
/// (subclassed, loaded with a completion handler, its default store location) and the public
/// APIs the seed notes use, on their success paths.
@Suite("Typed requests and the container", .serialized)
struct ContainerAndTypedRequestTests {
    static func model() -> ManagedObjectModel {
        let bowtie = EntityDescription(name: "Bowtie", managedObjectClass: BowtieMO.self)
        let name = AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: "")
        name.userInfo = ["mappedKeyName": "title"]
        bowtie.properties = [name, AttributeDescription(name: "lastWorn", type: .date)]
        bowtie.userInfo = ["relatedByAttribute": "name"]
        let venue = EntityDescription(name: "Venue", managedObjectClass: GeneratedVenue.self)
        venue.properties = [AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: "")]
        return ManagedObjectModel(entities: [bowtie, venue])
    }

    func loadedContainer(_ directory: TemporaryDirectory) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Bowties", managedObjectModel: Self.model())
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: directory.file("Bowties.sqlite"))]
        try container.loadPersistentStores()
        return container
    }

    // MARK: Typed requests

    @Test("fetchRequest() is typed to the class it is called on")
    func typedFetchRequest() throws {
        // Core Data: the class generated for an entity declares `fetchRequest() ->
        // NSFetchRequest<Bowtie>`, so `let r: NSFetchRequest<Bowtie> = Bowtie.fetchRequest()`
        // and a fetch of it give `[Bowtie]` (Apple, "Core Data Programming Guide", and the
        // seed notes' `let fetchRequest3: NSFetchRequest<Dog> = Dog.fetchRequest()`).
        let directory = TemporaryDirectory()
        let container = try loadedContainer(directory)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let tie = BowtieMO(context: context)
            tie.name = "My bow tie"
            let venue = GeneratedVenue(context: context)
            venue.name = "Vivi Bubble Tea"
            try context.save()

            let annotated: FetchRequest<BowtieMO> = BowtieMO.fetchRequest()
            let inferred = BowtieMO.fetchRequest()
            let ties: [BowtieMO] = try context.fetch(inferred)
            #expect(ties.map(\.name) == ["My bow tie"])
            #expect(try context.fetch(annotated).first === tie)
            #expect(try context.count(for: BowtieMO.fetchRequest()) == 1)

            // Through a metatype known only as ManagedObject.Type: typed as the base class,
            // still the entity of the dynamic class.
            let type: ManagedObject.Type = BowtieMO.self
            let untyped = type.fetchRequest()
            #expect(try context.fetch(untyped).first === tie)

            // A class's own fetchRequest() (generated code) is the one used.
            let venues = try context.fetch(GeneratedVenue.fetchRequest())
            #expect(venues.map(\.name) == ["Vivi Bubble Tea"])
        }
    }

    @Test("the seeds' ways to make a request: FetchRequest() with an entity, by name, by class")
    func requestShapes() throws {
        // Core Data: `NSFetchRequest<Dog>()` with `.entity = NSEntityDescription.entity(forEntityName:
        // "Dog", in: context)`, `NSFetchRequest<Dog>(entityName: "Dog")` and `Dog.fetchRequest()`
        // are equivalent (the seed notes, "创建一个FetchRequest的方式有5种"; the other two are
        // model templates).
        let directory = TemporaryDirectory()
        let container = try loadedContainer(directory)
        let writer = container.viewContext
        try writer.performAndWait {
            let entity = try #require(EntityDescription.entity(forEntityName: "Bowtie", in: writer))
            #expect(entity.name == "Bowtie" && ObjectIdentifier(entity.managedObjectClass) == ObjectIdentifier(BowtieMO.self))
            #expect(EntityDescription.entity(forEntityName: "Nothing", in: writer) == nil)

            // insertNewObject(forEntityName:into:) makes an instance of the entity's class.
            let inserted = try #require(try EntityDescription.insertNewObject(forEntityName: "Bowtie", into: writer) as? BowtieMO)
            inserted.name = "Inserted"
            inserted.lastWorn = Date(timeIntervalSince1970: 0)
            // ManagedObject(entity:insertInto:) with KVC, as the seed's saveName(_:).
            let plain = ManagedObject(entity: entity, insertInto: writer)
            plain.setValue("Keyed", forKey: "name")
            #expect(plain.entity === entity)
            try writer.save()
        }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let entity = try #require(EntityDescription.entity(forEntityName: "Bowtie", in: context))
            let byEntity = FetchRequest<BowtieMO>()
            byEntity.entity = entity
            let byName = FetchRequest<BowtieMO>(entityName: "Bowtie")
            for request in [byEntity, byName, BowtieMO.fetchRequest()] {
                request.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
                #expect(try context.fetch(request).map(\.name) == ["Inserted", "Keyed"])
            }
            // The object made as a plain ManagedObject comes back, in another context, as an
            // instance of the entity's class (the typed fetches above include it).
        }
    }

    @Test("a result type the request's element type cannot hold is an error naming both")
    func resultTypeMismatch() throws {
        // Core Data: "当设置了某个具体resultType时，NSFetchRequest的范形需要与之对应" (the seed
        // notes: the generic type must match the result type, e.g. NSFetchRequest<NSNumber> for
        // .countResultType). Strata throws where Core Data would fail a cast.
        let directory = TemporaryDirectory()
        let container = try loadedContainer(directory)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            BowtieMO(context: context).name = "One"
            try context.save()

            let counted = BowtieMO.fetchRequest()
            counted.resultType = .countResultType
            let thrown = try #require(throws: StrataError.self) { try context.fetch(counted) }
            #expect(thrown.message.contains("NSNumber") && thrown.message.contains("BowtieMO"))
            #expect(thrown.entityName == "Bowtie")

            let ids = FetchRequest<NSDictionary>(entityName: "Bowtie")
            ids.resultType = .managedObjectIDResultType
            #expect(throws: StrataError.self) { try context.fetch(ids) }

            // Matching types work.
            let count = FetchRequest<NSNumber>(entityName: "Bowtie")
            count.resultType = .countResultType
            #expect(try context.fetch(count).first?.intValue == 1)
            let anyResult = FetchRequest<any FetchRequestResult>(entityName: "Bowtie")
            anyResult.resultType = .managedObjectIDResultType
            #expect(try context.fetch(anyResult).first is ManagedObjectID)
        }
    }

    // MARK: The model's extra information

    @Test("userInfo of entities and properties, and versionHashModifier, survive into the loaded model")
    func userInfoAndVersionHashModifier() throws {
        // Core Data: entities and properties carry a `userInfo` dictionary an app reads back
        // (MagicalRecord's `relatedByAttribute`, `mappedKeyName`: the seed notes), and
        // `versionHashModifier` changes an entity's or property's version hash so that an
        // otherwise identical model counts as a new version (Apple,
        // NSEntityDescription.versionHashModifier).
        let directory = TemporaryDirectory()
        let container = try loadedContainer(directory)
        let context = container.viewContext
        context.performAndWait {
            let entity = EntityDescription.entity(forEntityName: "Bowtie", in: context)
            #expect(entity?.userInfo["relatedByAttribute"] as? String == "name")
            #expect(entity?.attributesByName["name"]?.userInfo["mappedKeyName"] as? String == "title")
            #expect(entity?.attributesByName["lastWorn"]?.userInfo.isEmpty == true)
        }

        let plain = Self.model()
        let modified = Self.model()
        let plainHash = try #require(plain.entitiesByName["Bowtie"]?.versionHash)
        modified.entitiesByName["Bowtie"]?.versionHashModifier = "2"
        #expect(modified.entitiesByName["Bowtie"]?.versionHashModifier == "2")
        #expect(modified.entitiesByName["Bowtie"]?.versionHash != plainHash)
        #expect(modified.versionHash != plain.versionHash)
        let propertyModified = Self.model()
        propertyModified.entitiesByName["Bowtie"]?.attributesByName["lastWorn"]?.versionHashModifier = "worn-at"
        #expect(propertyModified.entitiesByName["Bowtie"]?.versionHash != plainHash)
        // userInfo is not part of the version hash.
        let annotated = Self.model()
        annotated.entitiesByName["Bowtie"]?.userInfo = ["other": 1]
        #expect(annotated.entitiesByName["Bowtie"]?.versionHash == plainHash)
    }

    @Test("metadataForPersistentStore(type:at:) reads a closed store; the model says whether it fits")
    func storeMetadata() throws {
        // Core Data: `NSPersistentStoreCoordinator.metadataForPersistentStore(ofType:at:)` reads a
        // store's metadata without adding it, and `isConfiguration(withName:
        // compatibleWithStoreMetadata:)` tells whether the model can open it without migration
        // (the seed notes' external-storage migration workaround uses both).
        let directory = TemporaryDirectory()
        let url = directory.file("Bowties.sqlite")
        let identifier: String
        do {
            let container = try loadedContainer(directory)
            identifier = try #require(container.persistentStoreCoordinator.persistentStores.first?.identifier)
        }
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(metadata[StoreMetadataKey.storeUUID] as? String == identifier)
        #expect(metadata[StoreMetadataKey.storeType] as? String != nil)
        let hashes = try #require(metadata[StoreMetadataKey.entityVersionHashes] as? [String: String])
        #expect(Set(hashes.keys) == ["Bowtie", "Venue"])
        #expect(Self.model().isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))

        let changed = Self.model()
        changed.entitiesByName["Bowtie"]?.versionHashModifier = "2"
        #expect(!changed.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(!Self.model().isConfiguration(withName: nil, compatibleWithStoreMetadata: [:]))
        // A configuration compares only its own entities.
        let venuesOnly = Self.model()
        venuesOnly.entitiesByName["Bowtie"]?.versionHashModifier = "2"
        if let venue = venuesOnly.entitiesByName["Venue"] { venuesOnly.setEntities([venue], forConfigurationName: "Venues") }
        #expect(venuesOnly.isConfiguration(withName: "Venues", compatibleWithStoreMetadata: metadata))
    }

    // MARK: The container

    @Test("loadPersistentStores(completionHandler:) calls back once per store, without an error")
    func loadWithCompletionHandler() throws {
        // Core Data: `loadPersistentStores { description, error in … }` calls the handler once
        // for each description, with a nil error on success (Apple,
        // NSPersistentContainer.loadPersistentStores(completionHandler:); the seed notes).
        let directory = TemporaryDirectory()
        let container = PersistentContainer(name: "Bowties", managedObjectModel: Self.model())
        let file = PersistentStoreDescription(url: directory.file("Bowties.sqlite"))
        file.shouldInferMappingModelAutomatically = true
        file.shouldMigrateStoreAutomatically = true
        let memory = PersistentStoreDescription()
        memory.type = .inMemory
        container.persistentStoreDescriptions = [file, memory]
        var calls: [(PersistentStoreDescription, (any Error)?)] = []
        container.loadPersistentStores { description, error in calls.append((description, error)) }
        #expect(calls.count == 2)
        #expect(calls.map { ObjectIdentifier($0.0) } == [ObjectIdentifier(file), ObjectIdentifier(memory)])
        #expect(calls.allSatisfy { $0.1 == nil })
        #expect(container.persistentStoreCoordinator.persistentStores.map(\.type) == [.sqlite, .inMemory])
        #expect(FileManager.default.fileExists(atPath: directory.file("Bowties.sqlite").path))
    }

    @Test("the default store is <name>.sqlite in defaultDirectoryURL(), which a subclass may override")
    func defaultStoreLocation() throws {
        // Core Data: a container's default store is `<name>.sqlite` in
        // `NSPersistentContainer.defaultDirectoryURL()`, a class method a subclass overrides
        // to move it (Apple, NSPersistentContainer.defaultDirectoryURL()); the URL is read from
        // the container's store description (the seed notes: "其默认的URL可以通过…URL方法拿到").
        let plain = PersistentContainer(name: "Bowties", managedObjectModel: Self.model())
        #expect(plain.persistentStoreDescriptions.count == 1)
        #expect(plain.persistentStoreDescriptions.first?.url == PersistentContainer.defaultDirectoryURL().appendingPathComponent("Bowties.sqlite"))
        #expect(plain.persistentStoreDescriptions.first?.type == .sqlite)

        let directory = TemporaryDirectory()
        let folder = directory.url.appendingPathComponent("Application Support", isDirectory: true)  // not created yet
        SeedContainer.testFolder.withLock { $0 = folder }
        let container = SeedContainer(name: "Bowties", managedObjectModel: Self.model())
        let expected = folder.appendingPathComponent("Bowties.sqlite")
        #expect(container.persistentStoreDescriptions.first?.url == expected)
        try container.loadPersistentStores()
        #expect(FileManager.default.fileExists(atPath: expected.path))
        #expect(container.persistentStoreCoordinator.persistentStores.first?.url == expected)

        // A SQLite description without a URL gets the default file when loaded.
        let again = SeedContainer(name: "Other", managedObjectModel: Self.model())
        let description = PersistentStoreDescription()
        again.persistentStoreDescriptions = [description]
        try again.loadPersistentStores()
        #expect(description.url == folder.appendingPathComponent("Other.sqlite"))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Other.sqlite").path))
    }

    @Test("a subclass with a saveContext() helper, as in the seed notes")
    func subclassWithSaveContext() async throws {
        // Core Data: NSPersistentContainer "is intended to be subclassed"; the subclass is the
        // place for helpers such as `saveContext(backgroundContext:)` (Apple, "Setting Up a
        // Core Data Stack", quoted by the seed notes: "NSPersistentContainer可以被子类化").
        let directory = TemporaryDirectory()
        let container = SeedContainer(name: "Bowties", managedObjectModel: Self.model())
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: directory.file("Seed.sqlite"))]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)

        let view = container.viewContext
        await view.perform { BowtieMO(context: view).name = "From the view" }
        try container.saveContext()
        #expect(await view.perform { !view.hasChanges })
        try container.saveContext()  // nothing to save: no error

        let background = container.newBackgroundContext()
        #expect(background.name == "seed background")  // the override is used
        await background.perform { BowtieMO(context: background).name = "From the background" }
        try container.saveContext(backgroundContext: background)

        // performBackgroundTask uses the subclass's newBackgroundContext() too.
        let (names, contextName) = try await container.performBackgroundTask { context in
            let request = BowtieMO.fetchRequest()
            request.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
            return (try context.fetch(request).map(\.name), context.name)
        }
        #expect(names == ["From the background", "From the view"])
        #expect(contextName == "seed background")

        // The subclass is still a PersistentContainer wherever one is expected.
        let asBase: PersistentContainer = container
        #expect(asBase.name == "Bowties")
    }
}
