import Foundation
import Testing

// The SQL builders are internal to Strata: these tests reach them with @testable so they can
// pin the text without opening a database.
@testable import Strata

/// A small library, built in code, with every shape the SQL builders handle:
///
/// - an inheritance tree: `Person` (root) with sub-entities `Author` and `Editor`, one table;
/// - attributes of several types, one indexed (`Book.title`);
/// - a to-one (`Book.author` ⇄ `Author.books`, a one-to-many);
/// - a to-one whose destination has sub-entities (`Book.editor` ⇄ `Person.edited`): its entity
///   code is stored beside the key;
/// - an ordered one-to-many (`Book.chapters` ⇄ `Chapter.book`: positions on the chapter rows);
/// - a many-to-many (`Book.tags` ⇄ `Tag.books`: a join table);
/// - an ordered many-to-many (`Shelf.books` ⇄ `Book.shelves`: a join table with positions);
/// - a uniqueness constraint (`Tag.label`).
///
/// Entity codes are handed out by name (1 Author, 2 Book, 3 Chapter, 4 Editor, 5 Person,
/// 6 Shelf, 7 Tag).
struct LibraryModel {
    let model: ManagedObjectModel
    let schema: SQLiteSchema
    let person: EntityDescription
    let author: EntityDescription
    let editor: EntityDescription
    let book: EntityDescription
    let chapter: EntityDescription
    let tag: EntityDescription
    let shelf: EntityDescription

    init() throws {
        let person = EntityDescription(name: "Person")
        let author = EntityDescription(name: "Author")
        let editor = EntityDescription(name: "Editor")
        let book = EntityDescription(name: "Book")
        let chapter = EntityDescription(name: "Chapter")
        let tag = EntityDescription(name: "Tag")
        let shelf = EntityDescription(name: "Shelf")
        person.subentities = [author, editor]
        person.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "edited", destinationEntityName: "Book", inverse: "editor", toMany: true),
        ]
        author.properties = [
            AttributeDescription(name: "rating", type: .double),
            RelationshipDescription(name: "books", destinationEntityName: "Book", inverse: "author", toMany: true),
        ]
        editor.properties = [AttributeDescription(name: "level", type: .integer16, isOptional: false, defaultValue: Int16(0))]
        let title = AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: "")
        title.isIndexed = true
        book.properties = [
            title,
            AttributeDescription(name: "price", type: .decimal),
            AttributeDescription(name: "published", type: .date),
            RelationshipDescription(name: "author", destinationEntityName: "Author", inverse: "books"),
            RelationshipDescription(name: "editor", destinationEntityName: "Person", inverse: "edited"),
            RelationshipDescription(name: "chapters", destinationEntityName: "Chapter", inverse: "book", toMany: true, isOrdered: true),
            RelationshipDescription(name: "tags", destinationEntityName: "Tag", inverse: "books", toMany: true),
            RelationshipDescription(name: "shelves", destinationEntityName: "Shelf", inverse: "books", toMany: true),
        ]
        chapter.properties = [
            AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "book", destinationEntityName: "Book", inverse: "chapters"),
        ]
        tag.properties = [
            AttributeDescription(name: "label", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "books", destinationEntityName: "Book", inverse: "tags", toMany: true),
        ]
        tag.uniquenessConstraints = [["label"]]
        shelf.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "books", destinationEntityName: "Book", inverse: "shelves", toMany: true, isOrdered: true),
        ]
        let model = ManagedObjectModel(entities: [person, book, chapter, tag, shelf])
        try model.freeze()
        self.model = model
        self.schema = SQLiteSchema(model: model)
        (self.person, self.author, self.editor, self.book, self.chapter, self.tag, self.shelf) = (person, author, editor, book, chapter, tag, shelf)
    }

    /// A relationship of `entity` by name.
    func relationship(_ name: String, of entity: EntityDescription) throws -> RelationshipDescription {
        try #require(entity.relationshipsByName[name])
    }

    /// The attribute slot of `name` in `entity`'s objects.
    func attributeSlot(_ name: String, of entity: EntityDescription) throws -> Int {
        guard case .attribute(let slot)? = entity.layout.slots[name] else { throw LookupError(name: name) }
        return slot
    }

    /// The to-one slot of `name` in `entity`'s objects.
    func toOneSlot(_ name: String, of entity: EntityDescription) throws -> Int {
        guard case .toOne(let slot)? = entity.layout.slots[name] else { throw LookupError(name: name) }
        return slot
    }

    /// A saved object's ID (the store token plays no part in SQL).
    func id(_ entity: EntityDescription, _ primaryKey: Int64) -> ManagedObjectID {
        ManagedObjectID(entity: entity, primaryKey: primaryKey, store: StoreToken(identifier: "sql-tests"))
    }

    /// A fetch plan for `entity`, bound as a context would bind it.
    func plan(
        _ entity: EntityDescription, _ format: String? = nil, _ arguments: [Any] = [], sortedBy sorts: [ObjectSortDescriptor] = [],
        limit: Int = 0, offset: Int = 0, includesSubentities: Bool = true, resultKind: FetchPlan.ResultKind = .rows
    ) throws -> FetchPlan {
        try FetchPlan.make(
            entity: entity, predicate: format.map { ObjectPredicate(format: $0, argumentArray: arguments) }, sortDescriptors: sorts,
            limit: limit, offset: offset, includesSubentities: includesSubentities, resultKind: resultKind)
    }

    struct LookupError: Error {
        let name: String
    }
}
