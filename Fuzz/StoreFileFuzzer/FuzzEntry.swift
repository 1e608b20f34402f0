// libFuzzer entry point for opening store files (`PersistentStoreCoordinator.addPersistentStore`
// with a SQLite file, then reading and saving). Built by `make fuzz-build` with
//   swiftc -sanitize=fuzzer,address -parse-as-library
// against Strata built as a static library with coverage instrumentation (the same library as
// the other fuzzers), together with the oracle `Fuzz/StoreFileOracle/*.swift`. See Fuzz/README.md.
//
// The input is the bytes of a store file. `StoreFileOracle.check` writes them to one file per
// process, adds it and, if it opened, uses it; a violated property aborts.
// `STRATA_FUZZ_WRITE_SEEDS=FOLDER` writes the seed corpus into FOLDER and exits
// (`make fuzz-store-seeds`).
import Foundation
import Strata

/// The file every input is written to: one per process, in a folder of its own.
private let file: URL = {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-store-fuzz-\(getpid())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("store.sqlite")
}()

/// One model for the whole run (frozen when the first store is added).
private let model = StoreFileOracle.model()

/// `STRATA_FUZZ_VERBOSE=1` prints what happened to each input (to replay one file).
private let verbose = ProcessInfo.processInfo.environment["STRATA_FUZZ_VERBOSE"] == "1"

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    if let folder = ProcessInfo.processInfo.environment["STRATA_FUZZ_WRITE_SEEDS"] {
        do {
            let written = try StoreFileSeeds.write(to: URL(fileURLWithPath: folder))
            for url in written { print("\(url.lastPathComponent)  \((try? Data(contentsOf: url).count) ?? 0) bytes") }
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("writing the seeds failed: \(error)\n".utf8))
            exit(1)
        }
    }
    return 0
}

/// Called by libFuzzer for every input; a violated property aborts (a "crash" libFuzzer saves).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    switch StoreFileOracle.check(bytes, file: file, model: model) {
    case .success(let outcome):
        if verbose { print(outcome) }
    case .failure(let violation):
        FileHandle.standardError.write(Data("StoreFileOracle: \(violation)\n".utf8))
        abort()
    }
    return 0
}
