import Foundation
import Strata

/// What the store-file fuzzer checks for one input, shared by the libFuzzer target
/// (`Fuzz/StoreFileFuzzer`) and the regression tests (`StoreFileFuzzTests`), so a saved crash
/// input replays exactly.
///
/// The input is the bytes of a SQLite store file. They are written to `file` (one path per
/// process, its `-wal` and `-shm` removed), and the file is added as a SQLite store with
/// persistent history tracking through a coordinator with ``model``. Then:
/// 1. adding throws a `StrataError` whose `url` is the file (a clear error: Core Data's
///    `NSPersistentStoreInvalidTypeError` / `NSSQLiteError` for a damaged or foreign file), or
///    the store opens;
/// 2. once open: every entity is fetched, every object's faults fired, its to-ones and to-manys
///    read, a count run, a small save (one insert, one update, one delete) and a history fetch
///    made; each throws a `StrataError` or answers — nothing traps, overflows or leaks.
public enum StoreFileOracle {
    /// The model every store of the corpus was made with: `Person` with the sub-entity
    /// `Employee` (one table, two entity codes), an ordered one-to-many (`Person.reports` ↔
    /// `Employee.manager`, a `Z_FOK_` column), an unordered one-to-many (`Person.notes` ↔
    /// `Note.person`, a foreign key with an `_ENT` column), and an ordered many-to-many
    /// (`Person.tags` ↔ `Tag.people`, a join table with `Z_ORDER`).
    public static func model() -> ManagedObjectModel {
        let person = EntityDescription(name: "Person")
        let employee = EntityDescription(name: "Employee")
        let note = EntityDescription(name: "Note")
        let tag = EntityDescription(name: "Tag")
        person.properties = [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "age", type: .integer16, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "score", type: .double),
            AttributeDescription(name: "born", type: .date),
            AttributeDescription(name: "photo", type: .binaryData),
            AttributeDescription(name: "balance", type: .decimal),
            AttributeDescription(name: "key", type: .uuid),
            RelationshipDescription(name: "reports", destination: employee, inverse: "manager", toMany: true, isOrdered: true),
            RelationshipDescription(name: "notes", destination: note, inverse: "person", toMany: true, deleteRule: .cascade),
            RelationshipDescription(name: "tags", destination: tag, inverse: "people", toMany: true, isOrdered: true),
        ]
        employee.properties = [
            AttributeDescription(name: "salary", type: .integer64),
            AttributeDescription(name: "active", type: .boolean, isOptional: false, defaultValue: true),
            RelationshipDescription(name: "manager", destination: person, inverse: "reports"),
        ]
        note.properties = [
            AttributeDescription(name: "text", type: .string),
            RelationshipDescription(name: "person", destination: person, inverse: "notes"),
        ]
        tag.properties = [
            AttributeDescription(name: "label", type: .string),
            RelationshipDescription(name: "people", destination: person, inverse: "tags", toMany: true),
        ]
        person.subentities = [employee]
        return ManagedObjectModel(entities: [person, employee, note, tag])
    }

    /// The options stores are added with: history tracking on (the history tables are read),
    /// a short busy timeout.
    public static var options: [String: any Sendable] {
        [PersistentStoreOption.persistentHistoryTracking: true, PersistentStoreOption.timeout: 1.0]
    }

    /// The entities fetched, in order.
    static let entityNames = ["Person", "Employee", "Note", "Tag"]

    /// What happened to one input, for the verbose mode and the tests.
    public enum Outcome: Equatable, Sendable {
        /// Adding the store threw this error (message and code).
        case refused(code: Int, message: String)
        /// The store opened; the operations that threw, by name, with their messages.
        case opened(objects: Int, failures: [String])
    }

    /// Checks one input written to `file` (overwritten; `-wal`/`-shm` beside it removed first),
    /// with `model` (made by ``model()``). Returns the outcome, or the violated property as
    /// `.failure`. Traps (the crashes the fuzzer looks for) happen inside, in Strata.
    public static func check(_ bytes: [UInt8], file: URL, model: ManagedObjectModel) -> Result<Outcome, OracleViolation> {
        for suffix in ["-wal", "-shm", "-journal"] { unlink(file.path + suffix) }
        do {
            try Data(bytes).write(to: file)
        } catch {
            return .failure(OracleViolation("cannot write the input to \(file.path): \(error)"))
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store: PersistentStore
        do {
            store = try coordinator.addPersistentStore(type: .sqlite, at: file, options: options)
        } catch let error as StrataError {
            guard error.url?.standardizedFileURL == file.standardizedFileURL else {
                return .failure(OracleViolation("adding the store threw an error that does not name the file: \(error)"))
            }
            return .success(.refused(code: error.code, message: error.message))
        } catch {
            return .failure(OracleViolation("adding the store threw \(type(of: error)), not a StrataError: \(error)"))
        }
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = "fuzzer"
        return context.performAndWait { exercise(context, model: model) }
    }

    /// Everything done with a store that opened.
    private static func exercise(_ context: ManagedObjectContext, model: ManagedObjectModel) -> Result<Outcome, OracleViolation> {
        var failures: [String] = []
        var violation: OracleViolation?
        /// Runs `body`; a `StrataError` is recorded, any other error is a violation.
        func attempt<T>(_ name: String, _ body: () throws -> T) -> T? {
            do {
                return try body()
            } catch let error as StrataError {
                failures.append("\(name): \(error.message)")
            } catch {
                violation = violation ?? OracleViolation("\(name) threw \(type(of: error)), not a StrataError: \(error)")
            }
            return nil
        }
        var objects: [ManagedObject] = []
        for name in entityNames {
            let request = FetchRequest<ManagedObject>(entityName: name)
            if let fetched = attempt("fetch \(name)", { try context.fetch(request) }) { objects += fetched }
            _ = attempt("count \(name)") { try context.count(for: request) }
            request.returnsObjectsAsFaults = false
            request.sortDescriptors = [ObjectSortDescriptor(key: name == "Tag" ? "label" : name == "Note" ? "text" : "name", ascending: true)]
            _ = attempt("sorted fetch \(name)") { try context.fetch(request) }
        }
        // Prefetching (members and their rows in one read) and dictionaries with aggregates
        // (the SQL aggregates decode stored values themselves).
        let prefetching = FetchRequest<ManagedObject>(entityName: "Employee")
        prefetching.relationshipKeyPathsForPrefetching = ["tags", "notes", "reports", "manager"]
        _ = attempt("prefetching fetch") { try context.fetch(prefetching) }
        let dictionaries = FetchRequest<NSDictionary>(entityName: "Employee")
        dictionaries.resultType = .dictionaryResultType
        dictionaries.propertiesToFetch = ["name", "age", "balance", "born", "key", "photo", "manager"]
        _ = attempt("dictionary fetch") { try context.fetch(dictionaries) }
        if let sum = try? ObjectExpression(validatingFormat: "sum:(balance)"), let average = try? ObjectExpression(validatingFormat: "average:(score)") {
            let aggregates = FetchRequest<NSDictionary>(entityName: "Employee")
            aggregates.resultType = .dictionaryResultType
            aggregates.propertiesToFetch = [
                "manager", ExpressionDescription(name: "total", expression: sum), ExpressionDescription(name: "mean", expression: average),
            ]
            aggregates.propertiesToGroupBy = ["manager"]
            _ = attempt("aggregate fetch") { try context.fetch(aggregates) }
        }
        // Each object once (an Employee is also a Person), in a stable order.
        var seen = Set<ObjectIdentifier>()
        objects = objects.filter { seen.insert(ObjectIdentifier($0)).inserted }
        for object in objects.prefix(200) {
            _ = attempt("fire \(object.objectID)") { try object.fulfillFault() }
            for property in object.entity.properties {
                let value = object.value(forKey: property.name)
                if let set = value as? Set<ManagedObject> {
                    for member in set.prefix(20) { _ = attempt("fire member") { try member.fulfillFault() } }
                } else if let ordered = value as? [ManagedObject] {
                    for member in ordered.prefix(20) { _ = attempt("fire member") { try member.fulfillFault() } }
                } else if let related = value as? ManagedObject {
                    _ = attempt("fire related") { try related.fulfillFault() }
                    _ = related.value(forKey: related.entity.properties.first?.name ?? "")
                }
            }
        }
        if let violation { return .failure(violation) }
        // A small save: one insert, one update, one delete.
        if let entity = model.entitiesByName["Employee"], let tagEntity = model.entitiesByName["Tag"] {
            let added = ManagedObject(entity: entity, insertInto: context)
            added.setValue("Fuzz", forKey: "name")
            added.setValue(Int64(1), forKey: "salary")
            let tag = ManagedObject(entity: tagEntity, insertInto: context)
            tag.setValue("new", forKey: "label")
            added.setValue([tag], forKey: "tags")
            if let first = objects.first(where: { !$0.isDeleted && $0.entity.name != "Tag" }) {
                added.setValue(first, forKey: "manager")
            }
            // Edits of existing to-manys: the ordered join (reordered, one added), the ordered
            // one-to-many (one moved out) and the unordered one (one added).
            if let owner = objects.first(where: { !$0.isDeleted && ($0.entity.name == "Person" || $0.entity.name == "Employee") }) {
                let tags = owner.mutableOrderedSetValue(forKey: "tags")
                if tags.count > 1 { tags.moveObjects(at: IndexSet(integer: tags.count - 1), to: 0) }
                tags.add(tag)
                let reports = owner.mutableOrderedSetValue(forKey: "reports")
                if reports.count > 0 { reports.removeObject(at: 0) }
                if let note = objects.first(where: { $0.entity.name == "Note" }) { owner.mutableSetValue(forKey: "notes").add(note) }
            }
            if let updated = objects.first(where: { $0.entity.name == "Note" || $0.entity.name == "Tag" }) {
                updated.setValue("changed", forKey: updated.entity.name == "Note" ? "text" : "label")
            }
            if let deleted = objects.last(where: { $0.entity.name == "Tag" || $0.entity.name == "Note" }) {
                context.delete(deleted)
            }
            if attempt("save", { try context.save() }) == nil { context.rollback() }
        }
        if let violation { return .failure(violation) }
        if let result = attempt("history", { try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)) }),
            let transactions = (result as? PersistentHistoryResult)?.result as? [PersistentHistoryTransaction]
        {
            for transaction in transactions.prefix(50) {
                for change in transaction.changes ?? [] {
                    _ = change.changedObjectID.uriRepresentation()
                    _ = change.tombstone?.count
                    _ = change.updatedProperties?.count
                }
            }
        }
        context.reset()
        if let violation { return .failure(violation) }
        return .success(.opened(objects: objects.count, failures: failures))
    }
}

/// A property the oracle found violated (the fuzzer aborts with its description).
public struct OracleViolation: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
