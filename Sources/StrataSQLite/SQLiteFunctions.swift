import CSQLite
import Foundation

final class FunctionBox {
    let body: ([SQLiteValue]) throws -> SQLiteValue
    init(_ body: @escaping ([SQLiteValue]) throws -> SQLiteValue) { self.body = body }
}

final class CollationBox {
    let compare: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Int32
    init(_ compare: @escaping (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Int32) { self.compare = compare }
}

extension SQLiteConnection {
    /// Registers a scalar SQL function. `argumentCount` -1 accepts any number of arguments.
    /// A thrown error becomes an SQL error carrying the error's description.
    public func registerFunction(
        _ name: String, argumentCount: Int32, deterministic: Bool = true,
        _ body: @escaping ([SQLiteValue]) throws -> SQLiteValue
    ) throws {
        let box = FunctionBox(body)
        retain(box)
        var flags = SQLITE_UTF8
        if deterministic { flags |= SQLITE_DETERMINISTIC }
        let rc = sqlite3_create_function_v2(
            handle, name, argumentCount, flags, Unmanaged.passUnretained(box).toOpaque(),
            { context, count, arguments in
                guard let context else { return }
                let box = Unmanaged<FunctionBox>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
                var values: [SQLiteValue] = []
                values.reserveCapacity(Int(count))
                for index in 0..<Int(count) {
                    values.append(SQLiteValue(sqliteValue: arguments?[index]))
                }
                do {
                    let result = try box.body(values)
                    result.setResult(of: context)
                } catch {
                    sqlite3_result_error(context, String(describing: error), -1)
                }
            }, nil, nil, nil)
        guard rc == SQLITE_OK else { throw makeError(rc) }
    }

    /// Registers a collation comparing UTF-8 byte strings; `compare` returns <0, 0 or >0.
    public func registerCollation(_ name: String, _ compare: @escaping (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Int32) throws {
        let box = CollationBox(compare)
        retain(box)
        let rc = sqlite3_create_collation_v2(
            handle, name, SQLITE_UTF8, Unmanaged.passUnretained(box).toOpaque(),
            { context, leftCount, left, rightCount, right in
                guard let context else { return 0 }
                let box = Unmanaged<CollationBox>.fromOpaque(context).takeUnretainedValue()
                return box.compare(
                    UnsafeRawBufferPointer(start: left, count: Int(leftCount)),
                    UnsafeRawBufferPointer(start: right, count: Int(rightCount)))
            }, nil)
        guard rc == SQLITE_OK else { throw makeError(rc) }
    }
}

extension SQLiteValue {
    init(sqliteValue: OpaquePointer?) {
        guard let value = sqliteValue else {
            self = .null
            return
        }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let count = Int(sqlite3_value_bytes(value))
            if let pointer = sqlite3_value_text(value) {
                self = .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self))
            } else {
                self = .text("")
            }
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            if count > 0, let pointer = sqlite3_value_blob(value) {
                self = .blob(Data(bytes: pointer, count: count))
            } else {
                self = .blob(Data())
            }
        default: self = .null
        }
    }

    func setResult(of context: OpaquePointer) {
        switch self {
        case .null: sqlite3_result_null(context)
        case .integer(let v): sqlite3_result_int64(context, v)
        case .real(let v): sqlite3_result_double(context, v)
        case .text(let v): sqlite3_result_text(context, v, Int32(v.utf8.count), strata_sqlite_transient())
        case .blob(let v):
            v.withUnsafeBytes { raw in
                if raw.isEmpty {
                    sqlite3_result_zeroblob(context, 0)
                } else {
                    sqlite3_result_blob(context, raw.baseAddress, Int32(raw.count), strata_sqlite_transient())
                }
            }
        }
    }
}
