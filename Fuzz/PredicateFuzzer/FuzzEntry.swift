// libFuzzer entry point for Strata's predicate parser. Built by `make fuzz` with
//   swiftc -sanitize=fuzzer,address -parse-as-library
// together with PredicateOracle/PredicateOracle.swift (one module), against Strata built as a
// static library with coverage instrumentation. See Fuzz/README.md.
//
// Environment: STRATA_FUZZ_NO_STORES=1 skips the fetches (parser and printer only, faster);
// STRATA_FUZZ_DIFFERENTIAL=1 also requires the SQLite and in-memory stores to agree.
import Foundation

private let stores: FuzzStores? = ProcessInfo.processInfo.environment["STRATA_FUZZ_NO_STORES"] == "1" ? nil : try? FuzzStores()
private let differential = ProcessInfo.processInfo.environment["STRATA_FUZZ_DIFFERENTIAL"] == "1"

/// Called by libFuzzer for every input; a violated property aborts (a "crash" libFuzzer saves).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let problem = PredicateOracle.check(bytes, stores: stores, differential: differential) {
        FileHandle.standardError.write(Data("PredicateOracle: \(problem)\n".utf8))
        abort()
    }
    return 0
}
