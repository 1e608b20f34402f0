import Foundation
import StrataCodeGeneration
import StrataTestSupport
import Testing

/// The files `strata generate` writes compile: they are type-checked with the toolchain's
/// `swiftc` against the Strata module this test run was built with, in Swift 6 mode with warnings
/// as errors. (The plugin's form is compiled by the build itself: CodegenPluginTests.)
@Suite("Generated code compiles")
struct GeneratedCodeCompilesTests {
    /// The package root (this file is `Tests/StrataCodeGenerationTests/…`).
    static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// The folder holding the built `Strata.swiftmodule`: `Modules` beside the test bundle.
    static func modulesDirectory() -> URL? {
        let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [binDirectory.appendingPathComponent("Modules"), binDirectory] {
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("Strata.swiftmodule").path) { return candidate }
        }
        return nil
    }

    /// `swiftc` on the `PATH` (the toolchain that runs these tests).
    static func swiftc() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") {
            let url = URL(fileURLWithPath: String(folder)).appendingPathComponent("swiftc")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    // The mogenerator model: inheritance three ways (class under class, class under a parent
    // without one, classless destinations), every attribute type, ordered and unordered
    // to-manys; CoreDataPlus: a class under a class under a class (an overridden key-path table).
    @Test("the files for corpus models type-check", arguments: ["mogenerator/test.xcdatamodel", "CoreDataPlus/SampleModel.xcdatamodeld"])
    func typeChecks(model: String) throws {
        let modules = try #require(Self.modulesDirectory(), "no Strata.swiftmodule beside \(CommandLine.arguments[0])")
        let swiftc = try #require(Self.swiftc(), "no swiftc on PATH")
        let scratch = TemporaryDirectory(prefix: "strata-codegen-compile")
        let generated = StrataCommand.run(["generate", ModelFileCorpus.url(model).path, "--output", scratch.url.path])
        #expect(generated.status == 0, "\(generated.errors)")
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter { $0.hasSuffix(".swift") }.sorted()
        #expect(files.count >= 4)

        let process = Process()
        process.executableURL = swiftc
        process.arguments =
            [
                "-typecheck", "-swift-version", "6", "-warnings-as-errors", "-module-name", "GeneratedApp", "-I", modules.path,
                "-I", Self.packageRoot.appendingPathComponent("Sources/CSQLite").path,
                "-I", Self.packageRoot.appendingPathComponent("Sources/CStrataMemory/include").path,
            ]
            + files.map { scratch.url.appendingPathComponent($0).path }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "swiftc: \(text)")
    }
}
