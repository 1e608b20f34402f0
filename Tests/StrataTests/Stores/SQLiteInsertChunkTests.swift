import Foundation
import Strata
import StrataSQLite
import StrataTestSupport
import Testing

/// The SQLite store inserts a save's new rows 16 to a statement per entity (`INSERT OR FAIL`)
/// and the rest one by one (`Stores/SQLite/SQLiteStore+Inserts.swift`). Core Data's contract does not change with
/// it: a save writes every inserted object's row with its values and relationships, and a save
/// that fails leaves the store as it was, with an error that names the object at fault
/// (`NSValidationObjectErrorKey` / `NSAffectedObjectsErrorKey` in Core Data's errors) and the
/// context usable.
@Suite("SQLite inserts in chunks")
struct SQLiteInsertChunkTests {
    /// Owner (name) ←→> Account (name, balance, owner).
    static func model() -> ManagedObjectModel {
        let owner = EntityDescription(name: "Owner")
        let account = EntityDescription(name: "Account")
        owner.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "accounts", destination: account, inverse: "owner", toMany: true),
        ]
        account.properties = [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "balance", type: .integer64, isOptional: false, defaultValue: 0),
            RelationshipDescription(name: "owner", destination: owner, inverse: "accounts"),
        ]
        return ManagedObjectModel(entities: [owner, account])
    }

    @Test("a save of more new rows than one statement holds, two entities interleaved, writes every row with its values and to-one keys")
    func manyRowsRoundTrip() throws {
        let stack = try TestStack(model: Self.model(), kind: .sqlite)
        let context = stack.newContext()
        let recorder = stack.recordSQL()
        // 37 accounts (two chunks of 16 and 5 rows alone) and 20 owners (one chunk and 4),
        // inserted alternately; account i belongs to owner i % 20, every seventh to none.
        let statements = try recorder.statements {
            try context.performAndWait {
                var owners: [ManagedObject] = []
                for index in 0..<37 {
                    if index < 20 {
                        let owner = ManagedObject(entity: try #require(stack.model.entitiesByName["Owner"]), insertInto: context)
                        owner.setValue("owner \(index)", forKey: "name")
                        owners.append(owner)
                    }
                    let account = ManagedObject(entity: try #require(stack.model.entitiesByName["Account"]), insertInto: context)
                    account.setValue("account \(index)", forKey: "name")
                    account.setValue(Int64(index * 100), forKey: "balance")
                    account.setValue(index % 7 == 0 ? nil : owners[index % owners.count], forKey: "owner")
                }
                try context.save()
            }
        }
        func inserts(into table: String, rows: Int) -> Int {
            statements.filter { $0.hasPrefix("INSERT") && $0.contains(" INTO \"\(table)\" ") && $0.components(separatedBy: "), (").count == rows }.count
        }
        #expect(inserts(into: "ZACCOUNT", rows: 16) == 2 && inserts(into: "ZACCOUNT", rows: 1) == 5)
        #expect(inserts(into: "ZOWNER", rows: 16) == 1 && inserts(into: "ZOWNER", rows: 1) == 4)
        try stack.reopen()
        let reader = stack.newContext()
        try reader.performAndWait {
            let accounts = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Account"))
            let owners = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Owner"))
            #expect(accounts.count == 37 && owners.count == 20)
            #expect(Set(owners.compactMap { $0.value(forKey: "name") as? String }) == Set((0..<20).map { "owner \($0)" }))
            for account in accounts {
                let name = try #require(account.value(forKey: "name") as? String)
                let index = try #require(Int(name.dropFirst("account ".count)))
                #expect(account.value(forKey: "balance") as? Int64 == Int64(index * 100), "\(name)")
                let owner = account.value(forKey: "owner") as? ManagedObject
                if index % 7 == 0 {
                    #expect(owner == nil, "\(name)")
                } else {
                    // Owner k was inserted before account k, so account i's owner is
                    // owner i % (i + 1 capped at 20).
                    #expect(owner?.value(forKey: "name") as? String == "owner \(index % min(index + 1, 20))", "\(name)")
                }
            }
        }
    }

    /// A stack whose file has an index the model does not know, added to the file (as a user
    /// may): SQLite alone refuses an account name twice.
    static func stackRefusingDuplicateNames() throws -> TestStack {
        let stack = try TestStack(model: model(), kind: .sqlite)
        try SQLiteConnection(path: stack.storeURL.path).execute("CREATE UNIQUE INDEX ZACCOUNT_NAME_UNIQUE ON ZACCOUNT (ZNAME)")
        return stack
    }

    /// The two integers of the one row `sql` reads from the stack's file.
    static func counts(_ sql: String, in stack: TestStack) throws -> (Int64, Int64) {
        let row = try SQLiteConnection(path: stack.storeURL.path).makeStatement(sql)
        #expect(try row.step())
        return (row.int64(at: 0), row.int64(at: 1))
    }

    @Test("a chunk that breaks a constraint of the store file: the error names the object whose row failed, the store keeps no row of the save, the context saves after the fix")
    func constraintInChunk() throws {
        let stack = try Self.stackRefusingDuplicateNames()
        let context = stack.newContext()
        try context.performAndWait {
            let entity = try #require(stack.model.entitiesByName["Account"])
            let accounts = (0..<20).map { index -> ManagedObject in
                let account = ManagedObject(entity: entity, insertInto: context)
                account.setValue(index == 13 ? "account 2" : "account \(index)", forKey: "name")
                return account
            }
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.code == StrataError.Code.managedObjectConstraintMerge)
            #expect(error.entityName == "Account")
            #expect(error.objectID == accounts[13].objectID)
            #expect(context.hasChanges && context.insertedObjects.count == 20)
            accounts[13].setValue("account 13", forKey: "name")
            try context.save()
        }
        let (rows, names) = try Self.counts("SELECT count(*), count(DISTINCT ZNAME) FROM ZACCOUNT", in: stack)
        #expect(rows == 20 && names == 20)
    }

    @Test("the store holds none of a failed save's rows: a save whose chunk fails commits nothing")
    func failedChunkCommitsNothing() throws {
        let stack = try Self.stackRefusingDuplicateNames()
        let context = stack.newContext()
        try context.performAndWait {
            let entity = try #require(stack.model.entitiesByName["Account"])
            let owner = ManagedObject(entity: try #require(stack.model.entitiesByName["Owner"]), insertInto: context)
            owner.setValue("owner", forKey: "name")
            // The duplicate is in the second chunk: the first chunk's 16 rows were written
            // before the failure and must be rolled back with the rest.
            for index in 0..<40 {
                let account = ManagedObject(entity: entity, insertInto: context)
                account.setValue(index == 30 ? "account 0" : "account \(index)", forKey: "name")
            }
            #expect(throws: StrataError.self) { try context.save() }
        }
        let (accounts, owners) = try Self.counts("SELECT (SELECT count(*) FROM ZACCOUNT), (SELECT count(*) FROM ZOWNER)", in: stack)
        #expect(accounts == 0 && owners == 0)
    }
}
