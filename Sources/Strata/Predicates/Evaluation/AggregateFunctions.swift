import Foundation
import Synchronization

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
    static func apply(_ aggregate: BoundAggregate, _ values: [StoredValue], decimal: Bool, collation: ValueCollation) -> StoredValue {
        switch aggregate {
        case .count:
            return .integer(Int64(values.lazy.filter { !$0.isNull }.count))
        case .sum, .avg:
            var accumulator = NumericAccumulator(decimal: decimal)
            for value in values { accumulator.add(value) }
            return aggregate == .sum ? accumulator.sum() : accumulator.average()
        case .min, .max:
            var best: StoredValue?
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
    /// The stored text of the only decimal added (already canonical), to return it as is.
    private var onlyDecimalText: String?
    private var sawNaN = false
    /// How many non-NULL values were added.
    private(set) var count = 0

    init(decimal: Bool) {
        self.decimal = decimal
    }

    /// Adds one value; NULL is skipped.
    mutating func add(_ value: StoredValue) {
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

    private mutating func addDecimal(_ value: StoredValue) {
        let number: Decimal?
        switch value {
        case .integer(let v): number = Decimal(v)
        case .real(let v): number = v.isNaN ? nil : AttributeCodec.decimalValue(v)
        case .text(let text):
            // Parsed through the shared memo: the same stored decimals are summed again and again.
            if case .number(let decimal) = ValueOrdering.decimalKey(text) { number = decimal } else { number = nil }
            onlyDecimalText = decimals.isEmpty ? text : nil
        default: number = nil
        }
        guard let number, !number.isNaN else {
            sawNaN = true
            return
        }
        if !decimals.isEmpty { onlyDecimalText = nil }
        decimals.append(number)
    }

    /// The sum (0 when nothing was added).
    func sum() -> StoredValue {
        if sawNaN { return decimal ? .text("NaN") : AttributeCodec.storedDouble(.nan) }
        if decimal { return .text(Self.canonical(decimalSum(), single: onlyDecimalText)) }
        if doubles.isEmpty {
            if let exact = Int64(exactly: integerSum) { return .integer(exact) }
            return .real(Double(integerSum))
        }
        return AttributeCodec.storedDouble(doubleSum())
    }

    /// The average (NULL when nothing was added).
    func average() -> StoredValue {
        guard count > 0 else { return .null }
        if sawNaN { return decimal ? .text("NaN") : AttributeCodec.storedDouble(.nan) }
        if decimal { return .text(Self.canonical(DecimalArithmetic.divide(decimalSum(), by: count), single: onlyDecimalText)) }
        let total = doubles.isEmpty ? Double(integerSum) : doubleSum()
        return AttributeCodec.storedDouble(total / Double(count))
    }

    /// The canonical text of a decimal result: the stored text of a single value as is,
    /// others through a memo (formatting decimals is slow and sums repeat).
    private static func canonical(_ value: Decimal, single: String?) -> String {
        if let single, single != "NaN" { return single }
        if value == 0 { return "0" }
        return canonicalMemo.value(for: value) { DecimalText.canonical(value) }
    }

    private static let canonicalMemo = BoundedMemo<Decimal, String>(capacity: 4_096)

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

/// Decimal arithmetic that `Decimal`'s operators get wrong.
enum DecimalArithmetic {
    /// `value / count`. Foundation's division gives NaN when the quotient's exponent would fall
    /// below Decimal's range (1e-100 / 1 is NaN); then the significand is divided alone and the
    /// quotient rounded to the smallest exponent Decimal holds.
    static func divide(_ value: Decimal, by count: Int) -> Decimal {
        guard !value.isNaN, count != 0 else { return .nan }
        let direct = value / Decimal(count)
        if !direct.isNaN { return direct }
        let exponent = value.exponent
        var quotient = Decimal(sign: value.sign, exponent: 0, significand: value.significand) / Decimal(count)
        if quotient.exponent + exponent < -128 {
            var rounded = Decimal()
            NSDecimalRound(&rounded, &quotient, max(0, 128 + exponent), .plain)
            quotient = rounded
        }
        return Decimal(sign: quotient.sign, exponent: quotient.exponent + exponent, significand: quotient.significand)
    }
}
