import Foundation
import StrataSQLite

/// Aggregates (`@count`, `@sum`, `@avg`, `@min`, `@max` over to-many relationships, and
/// `count:`, `sum:`, `average:`, `min:`, `max:` in dictionary results). NULLs are skipped.
///
/// Sums and averages are computed by ``NumericAccumulator``, which the SQLite store also
/// registers as the SQL aggregates `strata_sum` / `strata_avg` (and their decimal forms), so
/// both engines compute them with the same code. Minimum and maximum follow SQLite's value
/// ordering (`ValueOrdering`) with the attribute's collation, as SQL `MIN`/`MAX` do.
enum AggregateFunctions {
    /// Applies `aggregate` to `values` (one group). `decimal` selects exact decimal arithmetic
    /// for sums and averages; `collation` orders values for minimum and maximum.
    static func apply(_ aggregate: BoundAggregate, _ values: [SQLiteValue], decimal: Bool, collation: ValueCollation) -> SQLiteValue {
        switch aggregate {
        case .count:
            return .integer(Int64(values.lazy.filter { !$0.isNull }.count))
        case .sum, .avg:
            var accumulator = NumericAccumulator(decimal: decimal)
            for value in values { accumulator.add(value) }
            return aggregate == .sum ? accumulator.sum() : accumulator.average()
        case .min, .max:
            var best: SQLiteValue?
            for value in values where !value.isNull {
                guard let current = best else {
                    best = value
                    continue
                }
                let order = ValueOrdering.compare(value, current, collation: collation)
                if (aggregate == .min && order < 0) || (aggregate == .max && order > 0) { best = value }
            }
            return best ?? .null
        }
    }
}

/// Sum and average of stored values with rules that do not depend on the order of the values
/// (SQL gives no order inside a group, so an order-dependent sum could differ between engines):
///
/// - integers are added exactly (128-bit); a sum that does not fit 64 bits becomes a double;
/// - doubles are added in ascending order with compensated (Neumaier) summation;
/// - a NaN (stored as the text `NaN`) makes the result NaN;
/// - in decimal mode every value is a `Decimal`, added in ascending order, exactly within
///   `Decimal`'s 38 significant digits.
///
/// The sum of no values is 0; their average is NULL. Results are in stored form (a NaN double
/// is the text `NaN`, a decimal is its canonical text). O(n log n) for n doubles or decimals.
struct NumericAccumulator {
    let decimal: Bool
    private var integerSum: Int128 = 0
    private var integerCount = 0
    private var doubles: [Double] = []
    private var decimals: [Decimal] = []
    private var sawNaN = false
    /// How many non-NULL values were added.
    private(set) var count = 0

    init(decimal: Bool) {
        self.decimal = decimal
    }

    /// Adds one value; NULL is skipped.
    mutating func add(_ value: SQLiteValue) {
        if value.isNull { return }
        count += 1
        if decimal {
            addDecimal(value)
            return
        }
        switch ScalarFunctions.numeric(value) {
        case .integer(let v):
            integerSum += Int128(v)
            integerCount += 1
        case .real(let v):
            if v.isNaN { sawNaN = true } else { doubles.append(v) }
        default:
            break
        }
    }

    private mutating func addDecimal(_ value: SQLiteValue) {
        let number: Decimal?
        switch value {
        case .integer(let v): number = Decimal(v)
        case .real(let v): number = v.isNaN ? nil : AttributeCodec.decimalValue(v)
        case .text(let text): number = Decimal(string: text, locale: DecimalText.posix)
        default: number = nil
        }
        guard let number, !number.isNaN else {
            sawNaN = true
            return
        }
        decimals.append(number)
    }

    /// The sum (0 when nothing was added).
    func sum() -> SQLiteValue {
        if sawNaN { return decimal ? .text("NaN") : AttributeCodec.storedDouble(.nan) }
        if decimal { return .text(DecimalText.canonical(decimalSum())) }
        if doubles.isEmpty {
            if let exact = Int64(exactly: integerSum) { return .integer(exact) }
            return .real(Double(integerSum))
        }
        return AttributeCodec.storedDouble(doubleSum())
    }

    /// The average (NULL when nothing was added).
    func average() -> SQLiteValue {
        guard count > 0 else { return .null }
        if sawNaN { return decimal ? .text("NaN") : AttributeCodec.storedDouble(.nan) }
        if decimal { return .text(DecimalText.canonical(decimalSum() / Decimal(count))) }
        let total = doubles.isEmpty ? Double(integerSum) : doubleSum()
        return AttributeCodec.storedDouble(total / Double(count))
    }

    private func decimalSum() -> Decimal {
        var total = Decimal(0)
        for value in decimals.sorted() { total += value }
        return total
    }

    /// The doubles and the integer sum, added smallest first with Neumaier's compensation.
    private func doubleSum() -> Double {
        var terms = doubles
        if integerCount > 0 { terms.append(Double(integerSum)) }
        terms.sort { $0.isTotallyOrdered(belowOrEqualTo: $1) }
        guard var sum = terms.first else { return 0 }
        if terms.contains(where: \.isInfinite) {
            // inf + -inf is NaN; otherwise the infinity wins.
            return terms.filter(\.isInfinite).reduce(0, +)
        }
        var compensation = 0.0
        for term in terms.dropFirst() {
            let next = sum + term
            if !next.isFinite { return next }
            if Swift.abs(sum) >= Swift.abs(term) {
                compensation += (sum - next) + term
            } else {
                compensation += (term - next) + sum
            }
            sum = next
        }
        let result = sum + compensation
        // A zero sum is -0.0 only when every term is -0.0, as with plain addition.
        if result == 0 { return terms.allSatisfy { $0 == 0 && $0.sign == .minus } ? -0.0 : 0.0 }
        return result
    }
}
