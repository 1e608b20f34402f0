import CLibPQ

/// The rows and command status of one statement: owns libpq's `PGresult` and clears it when released.
///
/// A random-access collection of ``PostgreSQLRow``s. Values come in libpq's text format and are
/// converted when read (``PostgreSQLRow``). libpq documents a `PGresult` as read-only after it
/// is made, so it may be passed between threads and read from several at once: the type is
/// `Sendable`.
public final class PostgreSQLResult: @unchecked Sendable {
    // @unchecked Sendable: libpq never changes a PGresult after returning it ("PGresult objects
    // are normally read-only after creation, and so can be passed around freely between
    // threads", libpq's "Behavior in Threaded Programs"), and this class only reads it.
    let handle: OpaquePointer
    /// The names of the result's columns, in order.
    public let columnNames: [String]
    private let columnIndexes: [String: Int]
    /// The number of rows.
    public let count: Int

    /// Takes ownership of `handle` (a result of status `PGRES_TUPLES_OK`, `PGRES_COMMAND_OK` or
    /// `PGRES_EMPTY_QUERY`).
    init(handle: OpaquePointer) {
        self.handle = handle
        let columns = Int(PQnfields(handle))
        var names: [String] = []
        var indexes: [String: Int] = [:]
        for column in 0..<columns {
            let name = PQfname(handle, Int32(column)).map { String(cString: $0) } ?? ""
            names.append(name)
            if indexes[name] == nil { indexes[name] = column }
        }
        self.columnNames = names
        self.columnIndexes = indexes
        self.count = Int(PQntuples(handle))
    }

    deinit { PQclear(handle) }

    /// The command tag the server sent (`INSERT 0 1`, `SELECT 3`, `COMMIT`, `ROLLBACK`, …).
    public var commandTag: String { PQcmdStatus(handle).map { String(cString: $0) } ?? "" }

    /// The rows an `INSERT`, `UPDATE`, `DELETE`, `MERGE`, `SELECT`, `MOVE`, `FETCH` or `COPY`
    /// affected or returned (libpq's `PQcmdTuples`); nil for other commands.
    public var rowsAffected: Int? {
        guard let text = PQcmdTuples(handle) else { return nil }
        return Int(String(cString: text))
    }

    /// The index of the first column called exactly `name` (case-sensitive, unlike libpq's
    /// `PQfnumber`, which folds unquoted names to lower case), or nil. O(1).
    public func columnIndex(named name: String) -> Int? { columnIndexes[name] }

    /// The type OID of a column (`pg_type.oid`: 20 for `int8`, 25 for `text`, …).
    public func columnType(_ column: Int) -> UInt32 { PQftype(handle, Int32(column)) }
}

extension PostgreSQLResult: RandomAccessCollection {
    /// 0.
    public var startIndex: Int { 0 }
    /// The number of rows.
    public var endIndex: Int { count }
    /// The row at `position` (0 ..< count).
    public subscript(position: Int) -> PostgreSQLRow { PostgreSQLRow(result: self, index: position) }
}
