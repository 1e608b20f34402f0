import Foundation
import StrataSQLite

/// Writes the change rows of one history transaction through one prepared insert of a fixed
/// number of rows (`HistoryStatements.insertChange` or `.insertChangeChunk`): `add` binds a
/// change into the next row of the statement and runs it when every row is bound.
///
/// SQLite keeps a parameter's binding across resets, so the columns text (shared by the rows of
/// one change shape) and a null tombstone are bound into a row only when they differ from what
/// that row had last: most rows bind four integers. Used on the store's writer connection,
/// inside the write transaction of the changes (`SQLiteStore+History.swift`).
struct HistoryChangeWriter {
    private let statement: SQLiteStatement
    private let rows: Int
    private let transaction: Int64
    /// The row of the statement the next change goes into.
    private var row = 0
    /// Per row: the columns bound last (`.none` while nothing is).
    private var boundColumns: [[String]??]
    /// Per row: whether the tombstone bound last is null (`nil` while nothing is).
    private var boundNullTombstone: [Bool?]

    /// A writer of `transaction`'s changes through `statement`, which inserts `rows` rows.
    init(statement: SQLiteStatement, rows: Int, transaction: Int64) {
        self.statement = statement
        self.rows = rows
        self.transaction = transaction
        boundColumns = Array(repeating: .none, count: rows)
        boundNullTombstone = Array(repeating: nil, count: rows)
        statement.reset()
    }

    /// Binds `change` (of the row with primary key `pk`) into the next row; runs the statement
    /// when that was its last row.
    mutating func add(_ change: HistoryChangeRecord, pk: Int64) throws {
        let first = Int32(row * 6)
        statement.bind(int64: transaction, at: first + 1)
        statement.bind(int64: Int64(change.type.rawValue), at: first + 2)
        statement.bind(int64: change.objectID.entity.layout.code, at: first + 3)
        statement.bind(int64: pk, at: first + 4)
        if boundColumns[row] == .none || boundColumns[row] != .some(change.updatedProperties) {
            try statement.bind(change.updatedProperties.map { .text($0.joined(separator: ",")) } ?? .null, at: first + 5)
            boundColumns[row] = .some(change.updatedProperties)
        }
        if let tombstone = change.tombstone {
            try statement.bind(.blob(try HistoryTombstoneCoding.encode(tombstone)), at: first + 6)
            boundNullTombstone[row] = false
        } else if boundNullTombstone[row] != true {
            try statement.bind(.null, at: first + 6)
            boundNullTombstone[row] = true
        }
        row += 1
        if row == rows {
            _ = try statement.step()
            statement.reset()
            row = 0
        }
    }
}
