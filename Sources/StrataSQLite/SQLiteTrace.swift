import CSQLite
import Foundation

/// One statement that finished running, as reported to a connection's trace handler.
public struct SQLiteTraceEvent: Sendable {
    /// The SQL text as prepared (with `?` placeholders).
    public let sql: String
    /// The SQL text with bound values pasted in; equal to `sql` unless expansion was requested.
    public let expandedSQL: String
    /// How long the statement ran, in nanoseconds.
    public let nanoseconds: UInt64
}

final class TraceBox {
    let handler: (SQLiteTraceEvent) -> Void
    let expands: Bool
    init(handler: @escaping (SQLiteTraceEvent) -> Void, expands: Bool) {
        self.handler = handler
        self.expands = expands
    }
}

extension SQLiteConnection {
    /// Installs (or with `nil`, removes) a handler called after each statement finishes, with its
    /// SQL and run time. With `expandingArguments`, the event also carries the SQL with its bound
    /// values pasted in (slower; meant for debugging). The handler runs on the thread using the
    /// connection.
    public func setTraceHandler(expandingArguments: Bool = false, _ handler: ((SQLiteTraceEvent) -> Void)?) {
        traceBox?.release()
        traceBox = nil
        guard let handler else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            return
        }
        let box = Unmanaged.passRetained(TraceBox(handler: handler, expands: expandingArguments))
        traceBox = box
        sqlite3_trace_v2(
            handle, UInt32(SQLITE_TRACE_PROFILE),
            { _, context, statement, nanosecondsPointer in
                guard let context, let statement else { return 0 }
                let box = Unmanaged<TraceBox>.fromOpaque(context).takeUnretainedValue()
                let stmt = OpaquePointer(statement)
                let sql = sqlite3_sql(stmt).map { String(cString: $0) } ?? ""
                var expanded = sql
                if box.expands, let pointer = sqlite3_expanded_sql(stmt) {
                    expanded = String(cString: pointer)
                    sqlite3_free(pointer)
                }
                let nanoseconds = nanosecondsPointer.map { $0.load(as: Int64.self) } ?? 0
                box.handler(SQLiteTraceEvent(sql: sql, expandedSQL: expanded, nanoseconds: UInt64(max(0, nanoseconds))))
                return 0
            }, box.toOpaque())
    }
}
