import Foundation
import StrataCodeGeneration
import StrataTestSupport
import Testing

/// `strata generate`: what it writes where, what it leaves alone, and how it reports bad input.
@Suite("strata command")
struct StrataCommandTests {
    static let model = ModelFileCorpus.url("strata-samples/Album.xcdatamodeld")

    // Xcode's class file is the developer's once created; the properties file is always the
    // model's. The command writes `+Class` only when missing and `+Properties` only when its
    // text changed (an unchanged file keeps its timestamp, so builds do not recompile it).
    @Test("the class file is written once; the properties file is rewritten only when it changed")
    func writtenOnce() throws {
        let scratch = TemporaryDirectory(prefix: "strata-codegen")
        let output = scratch.url.appendingPathComponent("Model")
        let arguments = ["generate", Self.model.path, "--output", output.path]
        let first = StrataCommand.run(arguments)
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output == "created   Photo+Class.swift\ncreated   Photo+Properties.swift\n")

        let classURL = output.appendingPathComponent("Photo+Class.swift")
        let propertiesURL = output.appendingPathComponent("Photo+Properties.swift")
        let mine = "import Strata\n\npublic final class Photo: _Photo { var shout: String { name.uppercased() } }\n"
        try Data(mine.utf8).write(to: classURL)
        let second = StrataCommand.run(arguments)
        #expect(second.output == "unchanged Photo+Class.swift\nunchanged Photo+Properties.swift\n")
        #expect(try String(contentsOf: classURL, encoding: .utf8) == mine)

        try Data("// stale\n".utf8).write(to: propertiesURL)
        let third = StrataCommand.run(arguments)
        #expect(third.output == "unchanged Photo+Class.swift\nupdated   Photo+Properties.swift\n")
        #expect(try String(contentsOf: propertiesURL, encoding: .utf8).contains("@Attribute(\"rating\") public var rating: Int16\n"))
        #expect(try String(contentsOf: classURL, encoding: .utf8) == mine)
    }

    @Test("--combined writes one file and leaves out --user-class classes")
    func combined() throws {
        let scratch = TemporaryDirectory(prefix: "strata-codegen")
        let result = StrataCommand.run(["generate", Self.model.path, "-o", scratch.url.path, "--combined", "--user-class", "Photo", "--access-level", "internal"])
        #expect(result.status == 0, "\(result.errors)")
        let text = try String(contentsOf: scratch.url.appendingPathComponent("Album+Entities.swift"), encoding: .utf8)
        #expect(text.contains("class _Photo: ManagedObject {"))
        #expect(!text.contains("class Photo: _Photo"))
    }

    // A model the reader refuses is reported with the reader's message (file, line, element) and
    // a non-zero status; nothing is written.
    @Test("an unreadable model is an error naming the file and line")
    func badModel() throws {
        let scratch = TemporaryDirectory(prefix: "strata-codegen")
        let version = scratch.url.appendingPathComponent("Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Book" representedClassName="Book">
                    <attribute name="isbn" attributeType="Integer 128"/>
                </entity>
            </model>
            """
        try Data(xml.utf8).write(to: version.appendingPathComponent("contents"))
        let output = scratch.url.appendingPathComponent("out")
        let result = StrataCommand.run(["generate", version.path, "--output", output.path])
        #expect(result.status == StrataCommand.modelStatus)
        #expect(result.errors.contains("Broken.xcdatamodel/contents:4"))
        #expect(result.errors.contains("Integer 128"))
        #expect(!FileManager.default.fileExists(atPath: output.path))

        let missing = StrataCommand.run(["generate", scratch.url.appendingPathComponent("Nope.xcdatamodeld").path, "--output", output.path])
        #expect(missing.status == StrataCommand.modelStatus)
        #expect(missing.errors.hasPrefix("strata: cannot read the model:"))
    }

    @Test("bad command lines print the problem and the usage, status 64; --help prints the usage")
    func badArguments() {
        for (arguments, problem) in [
            ([], "usage:"),
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["generate"], "no model file given"),
            (["generate", "Model.xcdatamodeld"], "no --output folder given"),
            (["generate", "Model.xcdatamodeld", "--output"], "--output needs a value"),
            (["generate", "A.xcdatamodeld", "B.xcdatamodeld", "-o", "x"], "one model at a time"),
            (["generate", "A.xcdatamodeld", "-o", "x", "--verbose"], "unknown option '--verbose'"),
            (["generate", "A.xcdatamodeld", "-o", "x", "--access-level", "open"], "--access-level must be public or internal, not 'open'"),
        ] {
            let result = StrataCommand.run(arguments)
            #expect(result.status == StrataCommand.usageStatus, "\(arguments)")
            #expect(result.errors.contains(problem), "\(arguments): \(result.errors)")
            #expect(result.errors.contains("usage: strata generate"), "\(arguments)")
        }
        for arguments in [["--help"], ["generate", "--help"], ["-h"]] {
            let result = StrataCommand.run(arguments)
            #expect(result.status == 0)
            #expect(result.output.hasPrefix("usage: strata generate"))
        }
    }

    // An output folder that cannot be created is reported, not a crash.
    @Test("an output that cannot be written is an error")
    func unwritableOutput() throws {
        let scratch = TemporaryDirectory(prefix: "strata-codegen")
        let file = scratch.url.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let result = StrataCommand.run(["generate", Self.model.path, "--output", file.appendingPathComponent("sub").path])
        #expect(result.status == StrataCommand.outputStatus)
        #expect(result.errors.contains("cannot write into"))
    }
}
