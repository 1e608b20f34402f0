import Foundation
import Testing

@testable import Strata
@testable import StrataPostgreSQLStore
@testable import StrataTestSupport

/// Batch deletes on PostgreSQL run in SQL (`IncrementalStore.executeBatchDelete`) and do what the
/// SQLite store's SQL does. Core Data's facts: an `NSBatchDeleteRequest` runs in the store without
/// loading objects and applies each relationship's delete rule as a context's `delete(_:)` would
/// (NSDeleteRule: cascade deletes the destinations, nullify removes the deleted object from the
/// inverse, deny refuses the delete while the relationship holds an object), all or nothing; its
/// result names the deleted objects (`.resultTypeObjectIDs`, cascaded ones included); merging
/// them (`mergesChangesIntoContexts`, `mergeChanges(fromRemoteContextSave:into:)`) updates live
/// contexts, and other coordinators of a store shared between processes hear of it as of a save.
/// The graph is `BatchDeleteTests.model()`.
@Suite("PostgreSQL batch deletes in SQL", .disabled(if: PostgreSQLTestDatabase.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLBatchDeleteTests {
    /// "Entity name" of every object of the stack, by object ID.
    static func names(_ stack: TestStack) throws -> [ManagedObjectID: String] {
        let context = stack.newContext()
        return try context.performAndWait {
            var names: [ManagedObjectID: String] = [:]
            for entity in ["Department", "Employee", "Badge", "Project", "Budget", "Tag"] {
                for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity)) {
                    names[object.objectID] = "\(object.entity.name) \(object.value(forKey: "name") as? String ?? "?")"
                }
            }
            return names
        }
    }

    /// What a batch delete did, by names: the deleted rows, and each partner that lost one with
    /// its relationships that lost it.
    struct Outcome: Equatable {
        var count: Int
        var deleted: Set<String>
        var changed: [String: [String]]
    }

    /// The plan of a delete of `entity` rows matching `format` (sorted by `sortKey` descending
    /// and windowed when `limit` is positive), asking for every ID.
    static func plan(_ stack: TestStack, _ entity: String, _ format: String, limit: Int = 0, offset: Int = 0, sortKey: String? = nil) throws -> BatchDeletePlan {
        try BatchDeletePlan.matching(
            entity: try #require(stack.model.entitiesByName[entity]), predicate: ObjectPredicate(format: format),
            sortDescriptors: sortKey.map { [ObjectSortDescriptor(key: $0, ascending: false)] } ?? [], limit: limit, offset: offset, includesSubentities: true,
            returnsObjectIDs: true, returnsChangedIDs: true)
    }

    /// Runs `plan` in the SQLite store's SQL.
    static func runOnSQLite(_ stack: TestStack, _ plan: BatchDeletePlan) throws -> Outcome {
        let names = try Self.names(stack)
        let outcome = try #require(stack.coordinator.persistentStores.first).backend.batchDelete(plan, origin: TransactionOrigin())
        return Outcome(
            count: outcome.count, deleted: Set(outcome.deleted.map { names[$0] ?? "?" }),
            changed: Dictionary(uniqueKeysWithValues: outcome.changed.map { (names[$0] ?? "?", (outcome.changedProperties[$0] ?? []).sorted()) }))
    }

    /// Runs `plan` in the PostgreSQL store's SQL: the store must run it itself (not leave it to
    /// Strata's row-by-row path).
    static func runOnPostgreSQL(_ stack: TestStack, _ plan: BatchDeletePlan) throws -> Outcome {
        let names = try Self.names(stack)
        let store = try #require(stack.coordinator.persistentStores.first?.incrementalStore as? PostgreSQLStore)
        let result = try #require(try store.executeBatchDelete(StoreBatchDeleteRequest(plan: plan, store: store.token)))
        return Outcome(
            count: result.count, deleted: Set(result.deletedObjectIDs.map { names[$0] ?? "?" }),
            changed: Dictionary(uniqueKeysWithValues: result.changedObjectIDs.map { (names[$0] ?? "?", (result.lostRelationships[$0] ?? []).sorted()) }))
    }

    /// Core Data: NSBatchDeleteRequest follows the delete rules as a context's delete does —
    /// cascade (Department.employees, Employee.badges), nullify with a to-one inverse
    /// (Department.head ⇄ Employee.headOf) and a to-many one (Employee.department), many-to-many
    /// (Department.projects), a to-many without inverse (Project.tags), sub-entities
    /// (Contractor), a predicate SQL cannot run exactly ([cd]) — and counts cascaded rows.
    @Test(
        "cascade and nullify in SQL: the same deleted rows, partners, relationships and rows left as SQLite",
        arguments: [
            ("Department", "name IN {'d0', 'd2'}"), ("Employee", "name IN {'e0', 'e3', 'e5', 'e12'}"), ("Project", "name BEGINSWITH 'p'"),
            ("Badge", "name ENDSWITH 'b1'"), ("Employee", "department.name == 'd1'"), ("Contractor", "TRUEPREDICATE"), ("Tag", "name == 't1'"),
            ("Employee", "name ==[cd] 'É7'"), ("Budget", "TRUEPREDICATE"), ("Department", "name == 'nobody'"),
        ])
    func sameAsSQLite(delete: (entity: String, predicate: String)) throws {
        let sqlite = try BatchDeleteTests.seededCopy(.sqlite)
        let postgres = try BatchDeleteTests.seededCopy(.postgreSQL)
        let expected = try Self.runOnSQLite(sqlite, try Self.plan(sqlite, delete.entity, delete.predicate))
        let outcome = try Self.runOnPostgreSQL(postgres, try Self.plan(postgres, delete.entity, delete.predicate))
        #expect(outcome == expected)
        try sqlite.reopen()
        try postgres.reopen()
        #expect(try BatchDeleteTests.contents(postgres) == BatchDeleteTests.contents(sqlite))
    }

    /// Core Data: the fetch request's sort descriptors, fetchLimit and fetchOffset choose the
    /// objects a batch delete starts from; cascades follow from them.
    @Test("a window chooses the starting rows, in SQL or (for a sort SQL cannot run) in memory")
    func windowed() throws {
        for sortKey in ["name", "department.name"] {
            let sqlite = try BatchDeleteTests.seededCopy(.sqlite)
            let postgres = try BatchDeleteTests.seededCopy(.postgreSQL)
            let expected = try Self.runOnSQLite(sqlite, try Self.plan(sqlite, "Employee", "name BEGINSWITH 'e1'", limit: 3, offset: 1, sortKey: sortKey))
            let outcome = try Self.runOnPostgreSQL(postgres, try Self.plan(postgres, "Employee", "name BEGINSWITH 'e1'", limit: 3, offset: 1, sortKey: sortKey))
            #expect(outcome == expected)
            #expect(outcome.count == 9)  // three employees and their two badges each
            try sqlite.reopen()
            try postgres.reopen()
            #expect(try BatchDeleteTests.contents(postgres) == BatchDeleteTests.contents(sqlite))
        }
        // Tags reach no other row (Project.tags has no inverse): one DELETE of the window.
        let sqlite = try BatchDeleteTests.seededCopy(.sqlite)
        let postgres = try BatchDeleteTests.seededCopy(.postgreSQL)
        let expected = try Self.runOnSQLite(sqlite, try Self.plan(sqlite, "Tag", "TRUEPREDICATE", limit: 1, offset: 1, sortKey: "name"))
        let outcome = try Self.runOnPostgreSQL(postgres, try Self.plan(postgres, "Tag", "TRUEPREDICATE", limit: 1, offset: 1, sortKey: "name"))
        #expect(outcome == expected && outcome.deleted == ["Tag t1"])
        try sqlite.reopen()
        try postgres.reopen()
        #expect(try BatchDeleteTests.contents(postgres) == BatchDeleteTests.contents(sqlite))
    }

    /// Core Data: the deny rule refuses deleting an object while its relationship holds an
    /// object (NSDeleteRule.denyDeleteRule): the whole batch fails and nothing is deleted; the
    /// error is the SQLite store's (1600, the relationship and the refusing object).
    @Test("deny fails the whole delete in SQL with the SQLite store's error; nothing changes")
    func deny() throws {
        let sqlite = try BatchDeleteTests.seededCopy(.sqlite)
        let postgres = try BatchDeleteTests.seededCopy(.postgreSQL)
        let before = try BatchDeleteTests.contents(postgres)
        let expected = try #require(throws: StrataError.self) { try Self.runOnSQLite(sqlite, try Self.plan(sqlite, "Department", "TRUEPREDICATE")) }
        let error = try #require(throws: StrataError.self) { try Self.runOnPostgreSQL(postgres, try Self.plan(postgres, "Department", "TRUEPREDICATE")) }
        #expect(error.code == expected.code && error.code == StrataError.Code.validationRelationshipDeniedDelete)
        #expect(error.key == expected.key && error.key == "budget")
        #expect(error.entityName == expected.entityName && error.entityName == "Department")
        #expect(try Self.names(postgres)[try #require(error.objectID)] == "Department d4")
        try postgres.reopen()
        #expect(try BatchDeleteTests.contents(postgres) == before)
    }

    /// Core Data: NSBatchDeleteRequest(objectIDs:) deletes the objects of those IDs; objects
    /// already gone are not counted.
    @Test("a delete by object IDs runs in SQL; IDs whose rows are gone count for nothing")
    func byObjectIDs() throws {
        let sqlite = try BatchDeleteTests.seededCopy(.sqlite)
        let postgres = try BatchDeleteTests.seededCopy(.postgreSQL)
        func plan(_ stack: TestStack) throws -> BatchDeletePlan {
            let context = stack.newContext()
            let ids = try context.performAndWait { try context.fetch(BatchDeleteTests.request("Employee", "name IN {'e1', 'e5', 'e9'}")).map(\.objectID) }
            let employee = try #require(stack.model.entitiesByName["Employee"])
            return try BatchDeletePlan.objects(ids.filter { $0.entity === employee }, entity: employee, returnsObjectIDs: true, returnsChangedIDs: true)
        }
        let sqlitePlan = try plan(sqlite)
        let postgresPlan = try plan(postgres)
        #expect(try Self.runOnPostgreSQL(postgres, postgresPlan) == Self.runOnSQLite(sqlite, sqlitePlan))
        #expect(try Self.runOnPostgreSQL(postgres, postgresPlan).count == 0)
        try sqlite.reopen()
        try postgres.reopen()
        #expect(try BatchDeleteTests.contents(postgres) == BatchDeleteTests.contents(sqlite))
    }

    /// Core Data: merging a batch delete's IDs (`mergesChangesIntoContexts`) turns registered
    /// objects into deleted ones and removes them from their partners' relationships; a store
    /// shared between servers announces the delete as a save, so a context of another
    /// coordinator that merges automatically sees the same.
    @Test("the delete merges into live contexts of this coordinator and of another one")
    func mergesAndNotifies() throws {
        let stack = try BatchDeleteTests.seededCopy(.postgreSQL)
        let database = try #require(stack.database)
        let other = PersistentStoreCoordinator(managedObjectModel: stack.model)
        try database.addStore(to: other)
        let watcher = ManagedObjectContext(concurrencyType: .privateQueue)
        watcher.persistentStoreCoordinator = other
        watcher.automaticallyMergesChangesFromParent = true
        let viewer = stack.newContext(name: "viewer")
        func load(_ context: ManagedObjectContext) throws -> (department: ManagedObject, employee: ManagedObject) {
            try context.performAndWait {
                let employee = try #require(try context.fetch(BatchDeleteTests.request("Employee", "name == 'e5'")).first)
                let department = try #require(employee.value(forKey: "headOf") as? ManagedObject)
                _ = (department.value(forKey: "employees") as? Set<ManagedObject>)?.count
                return (department, employee)
            }
        }
        let (department, employee) = try load(viewer)
        let (watchedDepartment, watchedEmployee) = try load(watcher)
        let versionBefore = try #require(try Self.version(of: department.objectID, in: stack))
        let request = BatchDeleteRequest(objectIDs: [employee.objectID])
        request.mergesChangesIntoContexts = true
        request.resultType = .resultTypeObjectIDs
        let result = try BatchDeleteTests.batchDelete(stack, request)
        #expect(Set(try #require(result.result as? [ManagedObjectID])).count == 3)  // e5 and its two badges
        viewer.performAndWait {}  // the merge was queued on the viewer's queue
        viewer.performAndWait {
            #expect(employee.isDeleted)
            #expect(department.value(forKey: "head") == nil)
        }
        // The department lost its head: a new version, so a stale copy conflicts at save.
        #expect(try Self.version(of: department.objectID, in: stack) ?? 0 > versionBefore)
        #expect(
            ChangesMadeElsewhereTests.eventually(watcher, within: 5) {
                watchedEmployee.isDeleted && watchedDepartment.value(forKey: "head") == nil
                    && !((watchedDepartment.value(forKey: "employees") as? Set<ManagedObject>)?.contains(watchedEmployee) ?? true)
            })
    }

    /// Core Data: a cascade deletes every object the relationship holds when the delete runs
    /// (NSDeleteRule.cascadeDeleteRule), so no employee is left without its department. Another
    /// coordinator keeps adding employees to the departments being deleted: each addition either
    /// lands before the delete locks the department (and is deleted with it) or fails as a
    /// conflict on the department's version (its row is gone); none survives with its
    /// department cleared by the foreign key's `ON DELETE SET NULL`.
    @Test("a cascade racing saves that add members leaves no member behind")
    func cascadeRacingSaves() throws {
        let stack = try TestStack(model: BatchDeleteTests.model(), kind: .postgreSQL)
        let setup = stack.newContext()
        try setup.performAndWait {
            for index in 0..<12 {
                let department = ManagedObject(entity: try #require(stack.model.entitiesByName["Department"]), insertInto: setup)
                department.setValue("d\(index)", forKey: "name")
            }
            try setup.save()
        }
        let other = PersistentStoreCoordinator(managedObjectModel: stack.model)
        try #require(stack.database).addStore(to: other)
        let adder = ManagedObjectContext(concurrencyType: .privateQueue)
        adder.persistentStoreCoordinator = other
        adder.mergePolicy = .rollback
        let stop = StrataTestFlag()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var index = 0
            while !stop.isSet {
                adder.performAndWait {
                    index += 1
                    let request = BatchDeleteTests.request("Department", "name == %@")
                    request.predicate = ObjectPredicate(format: "name == %@", "d\(index % 12)")
                    guard let department = try? adder.fetch(request).first, let entity = stack.model.entitiesByName["Employee"] else { return }
                    let employee = ManagedObject(entity: entity, insertInto: adder)
                    employee.setValue("e\(index)", forKey: "name")
                    employee.setValue(department, forKey: "department")
                    do { try adder.save() } catch { adder.rollback() }
                    adder.reset()
                }
            }
            done.signal()
        }
        for index in 0..<12 {
            Thread.sleep(forTimeInterval: 0.02)
            _ = try BatchDeleteTests.batchDelete(stack, BatchDeleteRequest(fetchRequest: BatchDeleteTests.request("Department", "name == 'd\(index)'")))
        }
        stop.set()
        done.wait()
        let reader = stack.newContext()
        let (departments, orphans, employees) = try reader.performAndWait {
            (
                try reader.count(for: FetchRequest<ManagedObject>(entityName: "Department")),
                try reader.count(for: BatchDeleteTests.request("Employee", "department == nil")),
                try reader.count(for: FetchRequest<ManagedObject>(entityName: "Employee"))
            )
        }
        #expect(departments == 0 && orphans == 0 && employees == 0)
    }

    /// The row version of `id` in the store.
    static func version(of id: ManagedObjectID, in stack: TestStack) throws -> Int64? {
        let store = try #require(stack.coordinator.persistentStores.first?.incrementalStore)
        return try store.newValuesForObjects(with: [id], options: .default).first?.version
    }
}

/// A flag set once, read from other threads.
private final class StrataTestFlag: @unchecked Sendable {
    // @unchecked Sendable: the value is guarded by the lock.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
