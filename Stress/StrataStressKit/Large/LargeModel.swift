import Foundation
import Strata

/// A row of the large store: `key` is indexed and never changes (its expected value at every
/// position of a sorted walk is known), `name` and `score` are fixed functions of the key, and
/// `version` only ever grows (every writer adds one), so a read that returns less than a
/// version already merged into the reader is a stale row. Use on its context's queue.
public final class Record: ManagedObject {
    /// The row's number, `0..<rows`, indexed.
    @Attribute("key") public var key: Int64
    /// How many saved edits the row has had (0 in the built store).
    @Attribute("version") public var version: Int64
    /// ``LargeModel/name(of:)`` of the key.
    @Attribute("name") public var name: String
    /// ``LargeModel/score(of:)`` of the key.
    @Attribute("score") public var score: Double
}

/// The model of the large-data stress mode: `Record` (a million rows), plus the bank's
/// `Account` and `Transfer` so that money moves in the same store.
public enum LargeModel {
    /// The model: `Record(key indexed, version, name, score)`, `Account`, `Transfer`.
    public static func make() -> ManagedObjectModel {
        let record = EntityDescription(name: "Record", managedObjectClass: Record.self)
        let key = AttributeDescription(name: "key", type: .integer64, isOptional: false, defaultValue: Int64(0))
        key.isIndexed = true
        record.properties = [
            key,
            AttributeDescription(name: "version", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "score", type: .double, isOptional: false, defaultValue: 0.0),
        ]
        return ManagedObjectModel(entities: [record, BankModel.accountEntity(), BankModel.transferEntity()])
    }

    /// The name every row with `key` has.
    public static func name(of key: Int64) -> String { "record \(key)" }

    /// The score every row with `key` has.
    public static func score(of key: Int64) -> Double { Double(key % 10_000) / 100 }

    /// A request for the records with keys in `range`, sorted by key.
    public static func records(in range: Range<Int64>) -> FetchRequest<Record> {
        let request = FetchRequest<Record>(entityName: "Record")
        request.predicate = ObjectPredicate(format: "key >= %@ AND key < %@", range.lowerBound, range.upperBound)
        request.sortDescriptors = [ObjectSortDescriptor(key: "key", ascending: true)]
        return request
    }

    /// A request for every record, sorted by key (for pages).
    public static func allRecords() -> FetchRequest<Record> {
        let request = FetchRequest<Record>(entityName: "Record")
        request.sortDescriptors = [ObjectSortDescriptor(key: "key", ascending: true)]
        return request
    }

    /// A request for the records with the given keys.
    public static func records(keys: [Int64]) -> FetchRequest<Record> {
        let request = FetchRequest<Record>(entityName: "Record")
        request.predicate = ObjectPredicate(format: "key IN %@", keys)
        return request
    }
}
