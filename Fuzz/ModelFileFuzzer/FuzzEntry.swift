// libFuzzer entry point for Strata's model-file reader (`ManagedObjectModel(contentsOf:)`).
// Built by `make fuzz` with
//   swiftc -sanitize=fuzzer,address -parse-as-library
// against Strata built as a static library with coverage instrumentation (the same library as
// the predicate fuzzer). See Fuzz/README.md.
//
// The input is the bytes of a `.xcdatamodel`'s `contents` XML. It goes to the reader's `package`
// entry `ManagedObjectModel(modelFileData:file:)`, which is what `init(contentsOf:)` calls once it
// has found and read the file, so no file is written per input.
import Foundation
import Strata

/// The path every input claims to come from; errors must name it.
private let file = URL(fileURLWithPath: "/fuzz/Model.xcdatamodel/contents")

/// `STRATA_FUZZ_VERBOSE=1` prints what the reader made of each input (to replay one file).
private let verbose = ProcessInfo.processInfo.environment["STRATA_FUZZ_VERBOSE"] == "1"

/// What must hold for `data`: reading it throws a `StrataError` that names the file (a clear
/// error), or returns a model whose version hashes can be computed and are the same when the
/// same bytes are read again. Returns the violated property, or `nil`.
func checkModelFile(_ data: Data) -> String? {
    let model: ManagedObjectModel
    do {
        model = try ManagedObjectModel(modelFileData: data, file: file)
    } catch let error as StrataError {
        if verbose { print("error: \(error.message)") }
        guard error.message.contains(file.path) else { return "the error does not name the file: \(error.message)" }
        guard error.url == file else { return "the error's url is \(error.url?.path ?? "nil"): \(error.message)" }
        return nil
    } catch {
        return "the reader threw \(type(of: error)), not a StrataError: \(error)"
    }
    if verbose { print("loaded: \(model.entities.count) entities, \(model.fetchRequestTemplateNames.count) templates, \(model.configurations.count) configurations") }
    // A model that loads is consistent: parents and sub-entities point at each other.
    let byName = model.entitiesByName
    for entity in model.entities {
        if let parent = entity.superentity {
            guard byName[parent.name] === parent, parent.subentities.contains(where: { $0 === entity }) else {
                return "entity '\(entity.name)' has parent '\(parent.name)', which does not list it"
            }
        }
        for child in entity.subentities where child.superentity !== entity {
            return "sub-entity '\(child.name)' of '\(entity.name)' has another parent"
        }
    }
    let hashes = model.entityVersionHashesByName
    guard hashes.count == model.entities.count else { return "\(hashes.count) entity hashes for \(model.entities.count) entities" }
    guard let again = try? ManagedObjectModel(modelFileData: data, file: file) else { return "the same bytes failed to load a second time" }
    guard again.versionHash == model.versionHash, again.entityVersionHashesByName == hashes else {
        return "the same bytes gave different version hashes"
    }
    return nil
}

/// Called by libFuzzer for every input; a violated property aborts (a "crash" libFuzzer saves).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    if let problem = checkModelFile(Data(bytes: data, count: size)) {
        FileHandle.standardError.write(Data("ModelFileOracle: \(problem)\n".utf8))
        abort()
    }
    return 0
}
