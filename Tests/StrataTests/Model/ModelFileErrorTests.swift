import Foundation
import Strata
import StrataTestSupport
import Testing

/// Malformed model files: each is a thrown ``StrataError`` naming the file, the line and the
/// element — never a crash (Core Data refuses such files at compile time, in momc; Strata reads
/// the source XML, so it must say where the problem is).
@Suite("Model files: malformed files")
struct ModelFileErrorTests {
    func error(loading xml: String) throws -> StrataError {
        let scratch = ModelFileScratch()
        let url = try scratch.writeVersion(xml)
        return try #require(throws: StrataError.self) { try ManagedObjectModel(contentsOf: url) }
    }

    func expectPlace(_ error: StrataError, line: Int, element: String, file: String = "contents", _ comment: String = "") {
        #expect(error.code == StrataError.Code.coreData)
        #expect(error.url?.lastPathComponent == file, "\(error)")
        #expect(error.line == line, "\(error)")
        #expect(error.message.contains("<\(element)>"), "\(error)")
        #expect(error.message.contains(file), "\(error)")
    }

    @Test("bad XML names the line where the parser stopped")
    func badXML() throws {
        let error = try error(loading: "<?xml version=\"1.0\"?>\n<model>\n    <entity name=\"A\">\n        <attribute name=\"x\" attributeType=\"String\"\n</model>\n")
        #expect(error.line != nil && error.line! >= 4, "\(error)")
        #expect(error.message.contains("malformed"))
        #expect(error.url?.lastPathComponent == "contents")
    }

    @Test("an unknown attribute type")
    func unknownType() throws {
        let xml = ModelFileScratch.model("<entity name=\"A\">\n<attribute name=\"x\" attributeType=\"Integer 128\"/>\n</entity>")
        let error = try error(loading: xml)
        expectPlace(error, line: 4, element: "attribute")
        #expect(error.message.contains("Integer 128") && error.entityName == "A" && error.key == "x")
    }

    @Test("a composite attribute is refused clearly")
    func composite() throws {
        let error = try error(loading: ModelFileScratch.model("<entity name=\"A\">\n<attribute name=\"x\" attributeType=\"Composite\" composite=\"Point\"/>\n</entity>"))
        expectPlace(error, line: 4, element: "attribute")
        #expect(error.message.contains("composite"))
    }

    @Test("a relationship to a missing entity, or without a destination")
    func missingDestination() throws {
        let missing = try error(
            loading: ModelFileScratch.model("<entity name=\"A\">\n<relationship name=\"r\" optional=\"YES\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"Nowhere\"/>\n</entity>"))
        expectPlace(missing, line: 4, element: "relationship")
        #expect(missing.message.contains("Nowhere"))
        let none = try error(loading: ModelFileScratch.model("<entity name=\"A\">\n<relationship name=\"r\" optional=\"YES\" maxCount=\"1\"/>\n</entity>"))
        expectPlace(none, line: 4, element: "relationship")
    }

    @Test("duplicate entity and property names, a missing parent, a missing inverse")
    func duplicatesAndDangling() throws {
        expectPlace(try error(loading: ModelFileScratch.model("<entity name=\"A\"/>\n<entity name=\"A\"/>")), line: 4, element: "entity")
        expectPlace(
            try error(loading: ModelFileScratch.model("<entity name=\"A\">\n<attribute name=\"x\" attributeType=\"String\"/>\n<attribute name=\"x\" attributeType=\"Date\"/>\n</entity>")),
            line: 5, element: "attribute")
        expectPlace(try error(loading: ModelFileScratch.model("<entity name=\"A\" parentEntity=\"P\"/>")), line: 3, element: "entity")
        expectPlace(
            try error(
                loading: ModelFileScratch.model(
                    "<entity name=\"A\">\n<relationship name=\"r\" optional=\"YES\" maxCount=\"1\" destinationEntity=\"A\" inverseName=\"nope\" inverseEntity=\"A\"/>\n</entity>")),
            line: 4, element: "relationship")
    }

    @Test("bad values: a default that is not of the type, a bad predicate, an unknown delete rule")
    func badValues() throws {
        expectPlace(
            try error(loading: ModelFileScratch.model("<entity name=\"A\">\n<attribute name=\"x\" attributeType=\"Integer 16\" defaultValueString=\"many\"/>\n</entity>")),
            line: 4, element: "attribute")
        expectPlace(
            try error(loading: ModelFileScratch.model("<entity name=\"A\"/>\n<fetchRequest name=\"f\" entity=\"A\" predicateString=\"name ==== \"/>")),
            line: 4, element: "fetchRequest")
        expectPlace(
            try error(loading: ModelFileScratch.model("<entity name=\"A\"/>\n<fetchRequest name=\"f\" entity=\"B\"/>")),
            line: 4, element: "fetchRequest")
        expectPlace(
            try error(loading: ModelFileScratch.model("<entity name=\"A\">\n<relationship name=\"r\" deletionRule=\"Explode\" destinationEntity=\"A\"/>\n</entity>")),
            line: 4, element: "relationship")
        expectPlace(
            try error(loading: ModelFileScratch.model("<entity name=\"A\"/>\n<configuration name=\"C\">\n<memberEntity name=\"Z\"/>\n</configuration>")),
            line: 5, element: "memberEntity")
    }

    @Test("a root element that is not <model>")
    func wrongRoot() throws {
        expectPlace(try error(loading: "<?xml version=\"1.0\"?>\n<plist/>"), line: 2, element: "plist")
    }

    @Test("a version directory without contents, an empty bundle, a missing path")
    func missingFiles() throws {
        let scratch = ModelFileScratch()
        let version = scratch.directory.url.appendingPathComponent("Empty.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        let noContents = try #require(throws: StrataError.self) { try ManagedObjectModel(contentsOf: version) }
        #expect(noContents.url?.lastPathComponent == "contents" && noContents.message.contains("<contents>"))

        let bundle = scratch.directory.url.appendingPathComponent("Nothing.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let empty = try #require(throws: StrataError.self) { try ManagedObjectModel(contentsOf: bundle) }
        #expect(empty.url?.lastPathComponent == "Nothing.xcdatamodeld" && empty.message.contains("no .xcdatamodel"))

        let nowhere = try #require(throws: StrataError.self) { try ManagedObjectModel(contentsOf: scratch.directory.file("No.xcdatamodeld")) }
        #expect(nowhere.url?.lastPathComponent == "No.xcdatamodeld")
    }

    @Test("a .xccurrentversion naming a missing version, or several versions and none named")
    func badCurrentVersion() throws {
        let scratch = ModelFileScratch()
        try scratch.writeVersion(ModelFileScratch.model("<entity name=\"A\"/>"), name: "V1", bundle: "M")
        try scratch.writeVersion(ModelFileScratch.model("<entity name=\"A\"/>"), name: "V2", bundle: "M")
        let bundle = scratch.directory.url.appendingPathComponent("M.xcdatamodeld")
        let ambiguous = try #require(throws: StrataError.self) { try ManagedObjectModel(contentsOf: bundle) }
        #expect(ambiguous.message.contains("2 versions"))
        _ = try scratch.writeCurrentVersion("V9.xcdatamodel", bundle: "M")
        let missing = try #require(throws: StrataError.self) { try ManagedObjectModel(contentsOf: bundle) }
        expectPlace(missing, line: 6, element: "string", file: ".xccurrentversion")
        #expect(missing.message.contains("V9.xcdatamodel"))
    }

    // A model the reader accepts element by element but that is inconsistent as a whole is
    // reported by the model check, naming the file.
    @Test("a model-level problem found by the model check names the file")
    func modelCheck() throws {
        let error = try error(loading: ModelFileScratch.model("<entity name=\"A\">\n<attribute name=\"description\" attributeType=\"String\"/>\n</entity>"))
        #expect(error.message.contains("contents") && error.message.contains("reserved"))
        #expect(error.url?.lastPathComponent == "contents")
    }

    @Test("truncated and garbage files never crash")
    func garbage() throws {
        let full = ModelFileFeatureTests.everything
        for cut in stride(from: 0, to: full.utf8.count, by: 97) {
            let scratch = ModelFileScratch()
            let url = try scratch.writeVersion(String(decoding: Array(full.utf8.prefix(cut)), as: UTF8.self))
            #expect(throws: StrataError.self) { try ManagedObjectModel(contentsOf: url) }
        }
    }

    /// Writes `bytes` as a version's `contents` and returns the error reading it.
    func error(loading bytes: [UInt8]) throws -> StrataError {
        let scratch = ModelFileScratch()
        let url = try scratch.writeVersion("")
        try Data(bytes).write(to: url.appendingPathComponent("contents"))
        return try #require(throws: StrataError.self) { try ManagedObjectModel(contentsOf: url) }
    }

    // Found by the model-file fuzzer: FoundationXML's parser passes a null pointer to strlen for a
    // processing instruction with nothing after its target; the reader refuses the text first,
    // wherever it appears (Xcode never writes one).
    @Test(
        "a processing instruction with no data is an error, not a crash",
        arguments: [
            ("<?x-?>\n<model/>", 1), ("<?xml version=\"1.0\"?>\n<?xml-stylesheet?><model/>", 2),
            ("<model>\n\n<?pi?></model>", 3), ("<!DOCTYPE model [\n<?pi?>]><model/>", 2),
            // Found by the fuzzer in CI (crash-f63894a94bb8dc27): a `<![CDATA[` inside another
            // instruction's data opens no section, so it must not hide the empty one after it.
            ("<?pi <![CDATA[ ?>\n<?x-?><model/>", 2),
            // Inside a comment or a CDATA section it is only text, but refusing it there too keeps
            // the check independent of how the parser splits a damaged file.
            ("<model>\n<!-- <?pi?> --></model>", 2), ("<model><![CDATA[\n <?pi?> ]]></model>", 2),
        ])
    func emptyProcessingInstruction(xml: String, line: Int) throws {
        let error = try error(loading: Array(xml.utf8))
        expectPlace(error, line: line, element: "document")
        #expect(error.message.contains("processing instruction"), "\(error)")
    }

    // Found by the model-file fuzzer in CI (crash-647a266a930ac86e): FoundationXML's parser passes
    // null pointers to strlen for an attribute declared without a default, a notation and an
    // unparsed entity. Core Data model files have no document type, so any `<!DOCTYPE` is refused.
    @Test(
        "a document type declaration is an error, not a crash",
        arguments: [
            ("<!DOCTYPE model [<!ATTLIST model a CDATA #IMPLIED>]><model/>", 1),
            ("<?xml version=\"1.0\"?>\n<!DOCTYPE model [<!NOTATION n SYSTEM \"x\">]><model/>", 2),
            ("<!DOCTYPE model [\n<!ENTITY e SYSTEM \"x\" NDATA n>]><model/>", 1),
            ("<model>\n<!-- <!DOCTYPE model> --></model>", 2),
        ])
    func documentTypeDeclaration(xml: String, line: Int) throws {
        let error = try error(loading: Array(xml.utf8))
        expectPlace(error, line: line, element: "document")
        #expect(error.message.contains("document type declaration"), "\(error)")
    }

    @Test("processing instructions with data, comments and CDATA sections still read")
    func processingInstructionsThatRead() throws {
        for body in ["<?pi x?>", "<?pi ?>", "<!-- <?pi x?> -->", "<entity name=\"A\"><userInfo><entry key=\"k\" value=\"v\"/></userInfo></entity><![CDATA[ <?pi x?> ]]>"] {
            let scratch = ModelFileScratch()
            let url = try scratch.writeVersion(ModelFileScratch.model(body))
            #expect(throws: Never.self, "\(body)") { try ManagedObjectModel(contentsOf: url) }
        }
    }

    // Found by the model-file fuzzer (a leak under LeakSanitizer): an entity that is its own
    // ancestor made its parent hold it strongly as a sub-entity, a cycle never freed once a later
    // problem was thrown. The reader now refuses the cycle before linking sub-entities.
    @Test(
        "an entity that is its own ancestor is an error naming the entity",
        arguments: [
            ("<entity name=\"A\" parentEntity=\"A\"/>", "A", "A"),
            ("<entity name=\"A\" parentEntity=\"B\"/>\n<entity name=\"B\" parentEntity=\"A\"/>", "A", "A"),
            ("<entity name=\"C\"/>\n<entity name=\"A\" parentEntity=\"B\"/>\n<entity name=\"B\" parentEntity=\"B\"/>", "A", "B"),
        ])
    func inheritanceCycle(body: String, entity: String, through: String) throws {
        let error = try error(loading: ModelFileScratch.model(body))
        let line = 3 + (body.components(separatedBy: "\n").firstIndex { $0.contains("name=\"\(entity)\"") } ?? 0)
        expectPlace(error, line: line, element: "entity")
        #expect(error.message.contains("parent entities of '\(entity)' form a cycle (through '\(through)')"), "\(error)")
    }

    @Test("the model-file fuzzer's crash inputs (Fuzz/corpus/model-files/crash-*) read or are clear errors")
    func fuzzerCrashInputs() throws {
        let corpus = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/corpus/model-files")
        let names = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.hasPrefix("crash-") }.sorted()
        #expect(!names.isEmpty)
        for name in names {
            let scratch = ModelFileScratch()
            let url = try scratch.writeVersion("")
            try Data(contentsOf: corpus.appendingPathComponent(name)).write(to: url.appendingPathComponent("contents"))
            do {
                _ = try ManagedObjectModel(contentsOf: url)
            } catch let error as StrataError {
                #expect(error.message.contains("contents") && error.url?.lastPathComponent == "contents", "\(name): \(error)")
            }
        }
    }
}
