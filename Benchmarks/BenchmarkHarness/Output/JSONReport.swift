import Foundation

/// The JSON form of a ``BenchmarkRunReport`` (`--format json` and baseline files).
public enum JSONReport {
    /// Encodes `report` as pretty-printed JSON with sorted keys and ISO 8601 dates.
    public static func encode(_ report: BenchmarkRunReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return try encoder.encode(report)
    }

    /// Decodes a report written by ``encode(_:)``.
    public static func decode(_ data: Data) throws -> BenchmarkRunReport {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return try decoder.decode(BenchmarkRunReport.self, from: data)
    }

    /// The report as a JSON string (with a trailing newline); an error object if encoding fails.
    public static func render(_ report: BenchmarkRunReport) -> String {
        do {
            return String(decoding: try encode(report), as: UTF8.self) + "\n"
        } catch {
            return "{\"error\": \"cannot encode report: \(describe(error).replacingOccurrences(of: "\"", with: "'"))\"}\n"
        }
    }

    /// A one-line explanation of a coding error.
    static func describe(_ error: any Error) -> String {
        guard let decodingError = error as? DecodingError else { return error.localizedDescription }
        func location(_ path: [any CodingKey]) -> String {
            let joined = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return joined.isEmpty ? "top level" : joined
        }
        switch decodingError {
        case .dataCorrupted(let context):
            let underlying = context.underlyingError.map { " (\($0.localizedDescription))" } ?? ""
            return "invalid JSON at \(location(context.codingPath)): \(context.debugDescription)\(underlying)"
        case .keyNotFound(let key, let context):
            return "missing key \"\(key.stringValue)\" at \(location(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "unexpected value at \(location(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return String(describing: decodingError)
        }
    }
}
