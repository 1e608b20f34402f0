import Foundation
import Strata

/// Writes the bank workload through Strata.
public enum BankWorkload {
    /// Creates a store at `url` holding accounts 1…`accounts` (each with
    /// ``BankModel/initialBalance`` and `paddingLength` characters of padding, which spreads the
    /// accounts over more pages) and no saves yet.
    /// With `auditURL`, AuditEntry rows live in a second store there.
    public static func createStore(at url: URL, auditURL: URL? = nil, settings: StoreSettings, accounts: Int, paddingLength: Int = 64) throws {
        let stack = try BankStack(url: url, auditURL: auditURL, settings: settings)
        defer { stack.close() }
        let context = stack.newContext(name: "setup")
        try context.performAndWait {
            guard let entity = stack.model.entitiesByName["Account"] else { throw HarnessError("The bank model has no Account entity") }
            for number in 1...Int64(accounts) {
                let account = ManagedObject(entity: entity, insertInto: context)
                account.setValue(number, forKey: "number")
                account.setValue(BankModel.initialBalance, forKey: "balance")
                account.setValue(String(repeating: Character(UnicodeScalar(UInt8(65 + Int(number % 26)))), count: paddingLength), forKey: "padding")
            }
            try context.save()
        }
    }

    /// The highest save number in the store as `context` sees it (0 when there is none).
    public static func lastSaveNumber(in context: ManagedObjectContext) throws -> Int64 {
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "SaveRecord")
            request.sortDescriptors = [ObjectSortDescriptor(key: "number", ascending: false)]
            request.fetchLimit = 1
            guard let last = try context.fetch(request).first else { return 0 }
            return int64(last, "number")
        }
    }

    /// Makes the changes of `recipe` in `context`: balances moved, a SaveRecord and its
    /// Transfers inserted. Returns the SaveRecord. Call on the context's queue.
    @discardableResult
    public static func stage(_ recipe: SaveRecipe, in context: ManagedObjectContext) throws -> ManagedObject {
        guard let model = context.persistentStoreCoordinator?.managedObjectModel ?? root(of: context).persistentStoreCoordinator?.managedObjectModel,
            let recordEntity = model.entitiesByName["SaveRecord"], let transferEntity = model.entitiesByName["Transfer"]
        else { throw HarnessError("The context has no bank model") }
        let numbers = Set(recipe.transfers.flatMap { [$0.source, $0.target] })
        let request = FetchRequest<ManagedObject>(entityName: "Account")
        request.predicate = ObjectPredicate(format: "number IN %@", Array(numbers).sorted())
        var accounts: [Int64: ManagedObject] = [:]
        for account in try context.fetch(request) { accounts[int64(account, "number")] = account }
        let record = ManagedObject(entity: recordEntity, insertInto: context)
        record.setValue(recipe.number, forKey: "number")
        record.setValue(Int64(recipe.transfers.count), forKey: "transferCount")
        record.setValue(recipe.total, forKey: "total")
        record.setValue(recipe.payload, forKey: "payload")
        record.setValue(Int64(recipe.payload.count), forKey: "payloadSize")
        record.setValue(recipe.checksum, forKey: "checksum")
        record.setValue(recipe.route.rawValue, forKey: "kind")
        for transfer in recipe.transfers {
            guard let source = accounts[transfer.source], let target = accounts[transfer.target] else {
                throw HarnessError("Accounts \(transfer.source) or \(transfer.target) are missing from the store")
            }
            source.setValue(int64(source, "balance") - transfer.amount, forKey: "balance")
            target.setValue(int64(target, "balance") + transfer.amount, forKey: "balance")
            let row = ManagedObject(entity: transferEntity, insertInto: context)
            row.setValue(recipe.number, forKey: "saveNumber")
            row.setValue(transfer.source, forKey: "source")
            row.setValue(transfer.target, forKey: "target")
            row.setValue(transfer.amount, forKey: "amount")
            row.setValue(record, forKey: "record")
        }
        if recipe.route == .audited {
            guard let auditEntity = model.entitiesByName["AuditEntry"] else { throw HarnessError("The bank model has no AuditEntry") }
            let audit = ManagedObject(entity: auditEntity, insertInto: context)
            audit.setValue(recipe.number, forKey: "saveNumber")
            audit.setValue(recipe.total, forKey: "total")
        }
        return record
    }

    /// Stages `recipe` along its route and saves it to the store.
    public static func save(_ recipe: SaveRecipe, root: ManagedObjectContext) throws {
        let prepared = try prepare(recipe, root: root)
        try prepared.commit()
    }

    /// Stages `recipe` along its route up to the root context, without writing to the store.
    public static func prepare(_ recipe: SaveRecipe, root: ManagedObjectContext) throws -> PreparedSave {
        switch recipe.route {
        case .plain, .permanentIDs, .audited:
            let record = try root.performAndWait { try stage(recipe, in: root) }
            return PreparedSave(recipe: recipe, root: root, child: nil, childRecord: nil, record: record)
        case .chain:
            let child = ManagedObjectContext(concurrencyType: .privateQueue)
            child.parent = root
            child.name = "chain child"
            let childRecord = try child.performAndWait {
                let record = try stage(recipe, in: child)
                try child.save()
                return record
            }
            let record = try root.performAndWait {
                let request = FetchRequest<ManagedObject>(entityName: "SaveRecord")
                request.predicate = ObjectPredicate(format: "number == %@", recipe.number)
                guard let record = try root.fetch(request).first else {
                    throw HarnessError("The child's save did not reach its parent context")
                }
                return record
            }
            return PreparedSave(recipe: recipe, root: root, child: child, childRecord: childRecord, record: record)
        }
    }

    /// An attribute as Int64 (0 when absent).
    public static func int64(_ object: ManagedObject, _ key: String) -> Int64 {
        (object.value(forKey: key) as? Int64) ?? 0
    }

    private static func root(of context: ManagedObjectContext) -> ManagedObjectContext {
        var current = context
        while let parent = current.parent { current = parent }
        return current
    }
}

/// A save staged in a root context (possibly through a child) and ready to be written.
public final class PreparedSave {
    /// The recipe.
    public let recipe: SaveRecipe
    /// The root context holding the changes.
    public let root: ManagedObjectContext
    /// The child context the changes were made in (route `.chain`).
    public let child: ManagedObjectContext?
    /// The SaveRecord in the child context (route `.chain`).
    public let childRecord: ManagedObject?
    /// The SaveRecord in the root context.
    public let record: ManagedObject

    init(recipe: SaveRecipe, root: ManagedObjectContext, child: ManagedObjectContext?, childRecord: ManagedObject?, record: ManagedObject) {
        self.recipe = recipe
        self.root = root
        self.child = child
        self.childRecord = childRecord
        self.record = record
    }

    /// Writes the root context's changes to the store (obtaining permanent IDs first on route
    /// `.permanentIDs`). Throws what Strata throws; on failure the changes stay in the root.
    public func commit() throws {
        try root.performAndWait {
            if recipe.route == .permanentIDs {
                try root.obtainPermanentIDs(for: Array(root.insertedObjects))
            }
            try root.save()
        }
    }
}

/// A failure of the harness itself (not of the store under test).
public struct HarnessError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let description: String
    /// Creates an error.
    public init(_ description: String) { self.description = description }
}
