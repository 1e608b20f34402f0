import Foundation
import Strata
import StrataLocks
import StrataPostgreSQLStore
import StrataTestSupport
import Testing

/// A connection that drops in the middle of a save, within one process. Core Data's promise for
/// a failed save (NSManagedObjectContext.save(): "If there were multiple errors … the context's
/// changes are not saved") is that the store is left as it was and the context keeps its
/// changes, so the app can save again; on a server store the failure must also come within
/// seconds, not after the statement would have ended.
@Suite("PostgreSQL: a connection cut mid-save", .disabled(if: PostgreSQLTestDatabase.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLSaveFaultTests {
    /// The labels of the stored tags, read directly.
    static func storedLabels(_ database: PostgreSQLTestDatabase) throws -> [String] {
        try database.connect().execute("SELECT label FROM \"\(database.namespace)\".\"Tag\" ORDER BY label").compactMap { try $0.string(0) }
    }

    @Test("the save fails within seconds with 134030, the database is unchanged, and the same context saves again")
    func connectionCutMidSave() throws {
        let database = try PostgreSQLTestDatabase()
        let model = PostgreSQLStoreTests.everyTypeModel()
        let name = "strata_cut_\(UUID().uuidString.prefix(8).lowercased())"
        let url = database.url(applicationName: name)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .postgreSQL, at: url, options: database.options)
        let context = PostgreSQLStoreTests.context(coordinator)
        let tagEntity = try #require(model.entitiesByName["Tag"])
        let before = try context.performAndWait {
            let tag = ManagedObject(entity: tagEntity, insertInto: context)
            tag.setValue("before", forKey: "label")
            try context.save()
            return tag
        }
        // An INSERT into Tag now sleeps 30 s on the server: the save below is cut while in it.
        let admin = try database.connect()
        let ns = "\"\(database.namespace)\""
        try admin.execute("CREATE FUNCTION \(ns).slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$")
        try admin.execute("CREATE TRIGGER slow_insert BEFORE INSERT ON \(ns).\"Tag\" FOR EACH ROW EXECUTE FUNCTION \(ns).slow_insert()")
        context.performAndWait {
            before.setValue("changed", forKey: "label")
            ManagedObject(entity: tagEntity, insertInto: context).setValue("inserted", forKey: "label")
        }
        let outcome = StrataLock<(error: StrataError?, seconds: Double)?>(nil)
        let started = Date()
        DispatchQueue.global().async {
            let error = context.performAndWait { () -> StrataError? in
                do {
                    try context.save()
                    return nil
                } catch {
                    return error as? StrataError ?? StrataError(code: -1, message: "\(error)")
                }
            }
            outcome.withLock { $0 = (error, Date().timeIntervalSince(started)) }
        }
        // Wait until the save sits in the trigger, then end its session.
        var ended: Int64 = 0
        let deadline = Date().addingTimeInterval(10)
        while ended == 0 && Date() < deadline {
            ended =
                try admin.execute(
                    "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE application_name = $1 AND wait_event = 'PgSleep'",
                    parameters: [.text(name)]
                ).first?.int64(0) ?? 0
            if ended == 0 { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(ended == 1)
        while outcome.withLock({ $0 }) == nil && Date().timeIntervalSince(started) < 25 { Thread.sleep(forTimeInterval: 0.02) }
        let result = try #require(outcome.withLock { $0 })
        #expect(result.seconds < 10)  // not the trigger's 30 s
        #expect(result.error?.code == StrataError.Code.persistentStoreSave)
        // Nothing of the save reached the database.
        #expect(try Self.storedLabels(database) == ["before"])
        // The context kept its changes; once the server behaves, the same save succeeds on a
        // new connection.
        try admin.execute("DROP TRIGGER slow_insert ON \(ns).\"Tag\"")
        try context.performAndWait {
            #expect(context.hasChanges)
            try context.save()
        }
        #expect(try Self.storedLabels(database) == ["changed", "inserted"])
    }
}
