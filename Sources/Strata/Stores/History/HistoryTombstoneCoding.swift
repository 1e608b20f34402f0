import Foundation

/// How a store that writes history to a file encodes a tombstone (attribute name → stored
/// value) as one blob: a JSON object whose values keep their storage class (integer, real,
/// text, data), so decoding gives back exactly the stored values.
enum HistoryTombstoneCoding {
    private enum Value: Codable {
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob(Data)
    }

    static func encode(_ tombstone: [String: StoredValue]) throws -> Data {
        var values: [String: Value] = [:]
        for (name, stored) in tombstone {
            switch stored {
            case .null: continue
            case .integer(let value): values[name] = .integer(value)
            case .real(let value): values[name] = .real(value)
            case .text(let value): values[name] = .text(value)
            case .blob(let value): values[name] = .blob(value)
            }
        }
        return try JSONEncoder().encode(values)
    }

    /// The stored values, or nil when `data` is not a tombstone this type wrote.
    static func decode(_ data: Data) -> [String: StoredValue]? {
        guard let values = try? JSONDecoder().decode([String: Value].self, from: data) else { return nil }
        return values.mapValues {
            switch $0 {
            case .integer(let value): return .integer(value)
            case .real(let value): return .real(value)
            case .text(let value): return .text(value)
            case .blob(let value): return .blob(value)
            }
        }
    }
}
