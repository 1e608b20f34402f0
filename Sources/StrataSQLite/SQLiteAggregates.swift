import CSQLite
import Foundation

/// The running state of one evaluation of an aggregate SQL function (one group of rows).
///
/// SQLite calls ``step(_:)`` once per row of the group, then ``finish()`` once; a state object
/// is made per group and never shared, so it needs no locking. Used on the thread that steps
/// the statement.
public protocol SQLiteAggregateState: AnyObject {
    /// Adds one row's arguments. A thrown error becomes an SQL error of the statement.
    func step(_ arguments: [SQLiteValue]) throws
    /// The aggregate's value for the rows stepped so far (none for an empty group).
    func finish() throws -> SQLiteValue
}

final class AggregateBox {
    let makeState: () -> any SQLiteAggregateState
    init(_ makeState: @escaping () -> any SQLiteAggregateState) { self.makeState = makeState }
}

extension SQLiteConnection {
    /// Registers an aggregate SQL function (`xStep`/`xFinal`). `makeState` creates the state
    /// of one group; `argumentCount` -1 accepts any number of arguments. Call it while no other
    /// thread uses the connection (as for every connection call).
    public func registerAggregate(
        _ name: String, argumentCount: Int32, deterministic: Bool = true,
        makeState: @escaping () -> any SQLiteAggregateState
    ) throws {
        let box = AggregateBox(makeState)
        retain(box)
        var flags = SQLITE_UTF8
        if deterministic { flags |= SQLITE_DETERMINISTIC }
        let rc = sqlite3_create_function_v2(
            handle, name, argumentCount, flags, Unmanaged.passUnretained(box).toOpaque(), nil,
            { context, count, arguments in
                guard let context, let state = aggregateState(of: context, create: true) else { return }
                var values: [SQLiteValue] = []
                values.reserveCapacity(Int(count))
                for index in 0..<Int(count) {
                    values.append(SQLiteValue(sqliteValue: arguments?[index]))
                }
                do {
                    try state.step(values)
                } catch {
                    sqlite3_result_error(context, String(describing: error), -1)
                }
            },
            { context in
                guard let context else { return }
                // Takes the state back (releasing it); an empty group gets a fresh state.
                let state =
                    takeAggregateState(of: context)
                    ?? Unmanaged<AggregateBox>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue().makeState()
                do {
                    try state.finish().setResult(of: context)
                } catch {
                    sqlite3_result_error(context, String(describing: error), -1)
                }
            }, nil)
        guard rc == SQLITE_OK else { throw makeError(rc) }
    }
}

/// The state object stored in SQLite's per-group aggregate memory (a retained pointer).
private func aggregateState(of context: OpaquePointer, create: Bool) -> (any SQLiteAggregateState)? {
    let size = Int32(MemoryLayout<UnsafeMutableRawPointer?>.size)
    guard let memory = sqlite3_aggregate_context(context, create ? size : 0) else { return nil }
    let slot = memory.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    if let existing = slot.pointee {
        return Unmanaged<StateHolder>.fromOpaque(existing).takeUnretainedValue().state
    }
    guard create else { return nil }
    let box = Unmanaged<AggregateBox>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
    let holder = StateHolder(box.makeState())
    slot.pointee = Unmanaged.passRetained(holder).toOpaque()
    return holder.state
}

private func takeAggregateState(of context: OpaquePointer) -> (any SQLiteAggregateState)? {
    guard let memory = sqlite3_aggregate_context(context, 0) else { return nil }
    let slot = memory.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    guard let existing = slot.pointee else { return nil }
    slot.pointee = nil
    return Unmanaged<StateHolder>.fromOpaque(existing).takeRetainedValue().state
}

/// A class wrapper so an existential state can travel through an opaque pointer.
private final class StateHolder {
    let state: any SQLiteAggregateState
    init(_ state: any SQLiteAggregateState) { self.state = state }
}
