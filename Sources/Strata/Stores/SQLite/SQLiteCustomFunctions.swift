import Foundation
import StrataSQLite

/// Registers Strata's SQL functions and collations on a connection. They run the same Swift
/// code as the in-memory evaluator (`StringMatching`, `ScalarFunctions`, `ValueOrdering`), which
/// is why SQL fetches and in-memory evaluation agree.
enum SQLiteCustomFunctions {
    static func register(on connection: SQLiteConnection) throws {
        try connection.registerFunction(SQLNames.matchFunction, argumentCount: 4) { args in
            guard case .integer(let code) = args[0], let op = SQLNames.stringOperator(code: code),
                case .text(let text) = args[1], case .text(let pattern) = args[2], case .integer(let flags) = args[3]
            else { return .integer(0) }
            let options = ComparisonOptions(rawValue: UInt8(truncatingIfNeeded: flags))
            return .integer(try ScalarFunctions.match(op, text, pattern, options) ? 1 : 0)
        }
        try connection.registerFunction(SQLNames.scalarFunction, argumentCount: -1) { args in
            guard case .integer(let code)? = args.first, let function = SQLNames.function(code: code) else { return .null }
            return ScalarFunctions.apply(function, args.dropFirst().map(StoredValue.init)).sqliteValue
        }
        for (name, decimal, average) in [
            (SQLNames.sumAggregate, false, false), (SQLNames.averageAggregate, false, true),
            (SQLNames.decimalSumAggregate, true, false), (SQLNames.decimalAverageAggregate, true, true),
        ] {
            try connection.registerAggregate(name, argumentCount: 1) {
                AccumulatorState(accumulator: NumericAccumulator(decimal: decimal), average: average)
            }
        }
        func text(_ buffer: UnsafeRawBufferPointer) -> String {
            String(decoding: buffer, as: UTF8.self)
        }
        try connection.registerCollation(SQLNames.decimalCollation) { a, b in
            Int32(ValueOrdering.compareDecimalText(text(a), text(b)))
        }
        try connection.registerCollation(SQLNames.caseInsensitiveCollation) { a, b in
            Int32(StringMatching.compareCaseInsensitive(text(a), text(b)))
        }
        try connection.registerCollation(SQLNames.localizedCollation) { a, b in
            Int32(StringMatching.compareLocalizedStandard(text(a), text(b)))
        }
        for options in [ComparisonOptions.caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]] {
            try connection.registerCollation(SQLNames.foldCollation(options)) { a, b in
                Int32(StringMatching.compare(text(a), text(b), options))
            }
        }
    }
}

/// `NumericAccumulator` as the state of a SQL aggregate (one group of one statement).
private final class AccumulatorState: SQLiteAggregateState {
    private var accumulator: NumericAccumulator
    private let average: Bool

    init(accumulator: NumericAccumulator, average: Bool) {
        self.accumulator = accumulator
        self.average = average
    }

    func step(_ arguments: [SQLiteValue]) throws {
        accumulator.add(arguments.first.map(StoredValue.init) ?? .null)
    }

    func finish() throws -> SQLiteValue {
        (average ? accumulator.average() : accumulator.sum()).sqliteValue
    }
}
