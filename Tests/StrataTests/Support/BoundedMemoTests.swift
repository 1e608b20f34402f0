import Foundation
import Strata
import StrataTestSupport
import Testing

/// `BoundedMemo`, the memo behind string folding, decimal parsing and formatting, and compiled
/// regular expressions: hits return the remembered value without computing, the capacity is
/// never exceeded, errors are not remembered, and concurrent use from many threads is safe.
@Suite("Bounded memo")
struct BoundedMemoTests {
    struct Failure: Error {}

    @Test("a hit returns the memoized value without computing again")
    func hits() {
        let memo = BoundedMemo<String, Int>(capacity: 8)
        let computed = AtomicCounter()
        let first = memo.value(for: "a") {
            computed.add()
            return 1
        }
        let second = memo.value(for: "a") {
            computed.add()
            return 2  // a hit never calls this
        }
        #expect(first == 1 && second == 1)
        #expect(computed.current == 1)
        #expect(memo.value(for: "b") { 3 } == 3)
        #expect(memo.value(for: "a") { 4 } == 1)
        #expect(memo.count == 2)
    }

    @Test("the capacity is never exceeded; a full memo starts over")
    func bound() {
        let memo = BoundedMemo<Int, Int>(capacity: 4)
        #expect(memo.capacity == 4)
        for key in 0..<100 {
            #expect(memo.value(for: key) { key * 10 } == key * 10)
            #expect(memo.count <= 4)
            #expect(memo.count == key % 4 + 1)
        }
        // The memo was last emptied by inserting 96: 96...99 are still there.
        let computed = AtomicCounter()
        #expect(
            memo.value(for: 99) {
                computed.add()
                return -1
            } == 990)
        #expect(computed.current == 0)
        // A capacity below one holds one entry.
        let tiny = BoundedMemo<Int, Int>(capacity: 0)
        #expect(tiny.value(for: 1) { 1 } == 1 && tiny.value(for: 2) { 2 } == 2)
        #expect(tiny.count == 1)
    }

    @Test("a thrown error is not memoized")
    func errors() throws {
        let memo = BoundedMemo<String, Int>(capacity: 8)
        let computed = AtomicCounter()
        #expect(throws: Failure.self) {
            try memo.value(for: "bad") { () throws(Failure) -> Int in
                computed.add()
                throw Failure()
            }
        }
        #expect(memo.count == 0)
        let value = try memo.value(for: "bad") { () throws(Failure) -> Int in
            computed.add()
            return 7
        }
        #expect(value == 7 && computed.current == 2)
    }

    @Test("four threads sharing one memo always get the function's value")
    func concurrentUse() {
        let memo = BoundedMemo<Int, String>(capacity: 32)
        let wrong = AtomicCounter()
        let outcome = ThreadRunner.run(count: 4, timeout: 60) { index in
            var state = UInt64(index + 1)
            for _ in 0..<5_000 {
                // A small xorshift: 64 keys, so the memo both hits and fills up and starts over.
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                let key = Int(state % 64)
                if memo.value(for: key, compute: { "v\(key)" }) != "v\(key)" { wrong.add() }
                if memo.count > 32 { wrong.add() }
            }
        }
        #expect(outcome.finished, "watchdog: the threads did not finish in time")
        #expect(outcome.errors.isEmpty, "\(outcome.errors)")
        #expect(wrong.current == 0)
        #expect(memo.count <= 32)
    }
}
