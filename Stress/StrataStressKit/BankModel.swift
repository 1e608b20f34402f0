import Foundation
import Strata

/// An account of the bank model. Money only moves between accounts, and every move is logged
/// as a ``Transfer``; `operations` counts the transfers the account took part in.
/// Use on its context's queue.
public final class Account: ManagedObject {
    /// The account number (unique: a uniqueness constraint).
    @Attribute("number") public var number: Int64
    /// The balance, never negative.
    @Attribute("balance") public var balance: Int64
    /// How many transfers moved money from or to the account.
    @Attribute("operations") public var operations: Int64
    /// A free label, edited concurrently under the trump merge policies (never money).
    @Attribute("label") public var label: String?
}

/// One logged move of money from one account number to another. Use on its context's queue.
public final class Transfer: ManagedObject {
    /// The number of the account the money left.
    @Attribute("fromAccount") public var fromAccount: Int64
    /// The number of the account the money reached.
    @Attribute("toAccount") public var toAccount: Int64
    /// The amount moved (positive).
    @Attribute("amount") public var amount: Int64
}

/// The bank model and its constants.
public enum BankModel {
    /// Every account the bank opens with holds this much.
    public static let openingBalance: Int64 = 1_000

    /// The model: `Account(number, balance, operations, label)` with `number` unique, and
    /// `Transfer(fromAccount, toAccount, amount)`.
    public static func make() -> ManagedObjectModel {
        ManagedObjectModel(entities: [accountEntity(), transferEntity()])
    }

    /// A fresh `Account` entity (for models that hold the bank beside other entities).
    public static func accountEntity() -> EntityDescription {
        let account = EntityDescription(name: "Account", managedObjectClass: Account.self)
        let number = AttributeDescription(name: "number", type: .integer64, isOptional: false, defaultValue: Int64(0))
        number.isIndexed = true
        account.properties = [
            number,
            AttributeDescription(name: "balance", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "operations", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "label", type: .string),
        ]
        account.uniquenessConstraints = [["number"]]
        return account
    }

    /// A fresh `Transfer` entity (for models that hold the bank beside other entities).
    public static func transferEntity() -> EntityDescription {
        let transfer = EntityDescription(name: "Transfer", managedObjectClass: Transfer.self)
        transfer.properties = [
            AttributeDescription(name: "fromAccount", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "toAccount", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "amount", type: .integer64, isOptional: false, defaultValue: Int64(0)),
        ]
        return transfer
    }

    /// What account `number` held when it was opened: the bank's first `initialAccounts`
    /// accounts open with ``openingBalance``, later ones with nothing.
    public static func openingBalance(of number: Int64, initialAccounts: Int) -> Int64 {
        number < Int64(initialAccounts) ? openingBalance : 0
    }

    /// The money in the bank, whatever happens: only the initial accounts brought any.
    public static func totalMoney(initialAccounts: Int) -> Int64 {
        Int64(initialAccounts) * openingBalance
    }

    /// A request for accounts (optionally by number), sorted by number.
    public static func accounts(numbers: [Int64]? = nil) -> FetchRequest<Account> {
        let request = FetchRequest<Account>(entityName: "Account")
        if let numbers, !numbers.isEmpty {
            request.predicate = .or(numbers.map { ObjectPredicate(format: "number == %@", $0) })
        }
        request.sortDescriptors = [ObjectSortDescriptor(key: "number", ascending: true)]
        return request
    }

    /// A request for every logged transfer.
    public static func transfers() -> FetchRequest<Transfer> {
        FetchRequest<Transfer>(entityName: "Transfer")
    }

    /// Inserts and saves the initial accounts in `context` (a root context). Call from a
    /// thread that holds no context.
    public static func seed(_ context: ManagedObjectContext, accounts: Int) throws {
        try context.performAndWait {
            for number in 0..<accounts {
                let account = Account(context: context)
                account.number = Int64(number)
                account.balance = openingBalance
                account.operations = 0
            }
            try context.save()
            context.reset()
        }
    }
}
