import Foundation
import Testing

@testable import Strata

/// The fast conversion of the commonest format arguments (`PredicateValue.common`, chosen by
/// exact type) gives what the general chain of casts gives, so `%@` means the same whichever
/// path converts it.
@Suite("Predicate argument conversion")
struct PredicateArgumentConversionTests {
    /// Arguments of every type the fast path takes, at the edges where Foundation's bridging
    /// decides (an `NSNumber` of 0 or 1 bridges to `Bool`; one not exactly a `Double` does not).
    static var commonArguments: [Any] {
        [
            "", "text", "é", 0, 1, 5, -7, Int.max, Int.min, Int64(1), Int64.max, Int32(1), Int32.min, 0.0, 1.0, 2.5, -0.0, Double.nan,
            Double.infinity, true, false, NSNumber(value: 0), NSNumber(value: 1), NSNumber(value: 5), NSNumber(value: Int64.max),
            NSNumber(value: true), NSNumber(value: false), NSNumber(value: 1.0), NSNumber(value: 2.5), NSNumber(value: Float(1.5)),
            NSNumber(value: Double.nan), NSNumber(value: -0.0), NSNumber(value: 1.0000001), NSNumber(value: UInt8(1)), NSNumber(value: UInt64.max), NSNumber(value: Int8(1)),
            NSNumber(value: Int64(1) << 60 + 1),
        ]
    }

    @Test("each common argument converts as the general casts convert it")
    func commonMatchesGeneral() {
        // Core Data: a format argument's value is the constant of the comparison, whatever its
        // Swift or Foundation type; the shortcut must not change which constant it is.
        for argument in Self.commonArguments {
            let fast = PredicateValue.common(argument)
            #expect(fast != nil, "\(type(of: argument)) \(argument) should take the fast path")
            #expect(fast == PredicateValue.general(argument), "\(type(of: argument)) \(argument)")
            #expect(PredicateValue(any: argument) == PredicateValue.general(argument))
        }
    }

    @Test("other types take the general path")
    func othersAreGeneral() {
        // NSDecimalNumber is an NSNumber that bridges to Decimal first (Core Data keeps decimals
        // exact); Float, UInt8 and collections are rarer and keep the one chain of casts.
        let others: [Any] = [NSDecimalNumber(string: "1.5"), Float(1.5), UInt8(1), [1, 2], Set([3]), Date(timeIntervalSinceReferenceDate: 0), NSNull()]
        for argument in others {
            #expect(PredicateValue.common(argument) == nil, "\(type(of: argument))")
        }
        #expect(PredicateValue(any: NSDecimalNumber(string: "1.5")) == .decimal(NSDecimalNumber(string: "1.5").decimalValue))
        let mixed: [Any] = [NSNumber(value: 1), 2]
        #expect(PredicateValue(any: mixed) == .array([.bool(true), .integer(2)]))
    }
}
