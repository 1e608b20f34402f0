import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// One element of a model file's XML: its name, attributes, children and the line it starts on
/// (for error messages).
final class ModelXMLElement {
    let name: String
    let attributes: [String: String]
    let line: Int
    var children: [ModelXMLElement] = []

    init(name: String, attributes: [String: String], line: Int) {
        self.name = name
        self.attributes = attributes
        self.line = line
    }

    /// The children named `name`, in file order.
    func children(named name: String) -> [ModelXMLElement] { children.filter { $0.name == name } }

    /// The first child named `name`.
    func child(named name: String) -> ModelXMLElement? { children.first { $0.name == name } }

    /// The attribute `key`, with an empty string read as absent.
    subscript(key: String) -> String? {
        guard let value = attributes[key], !value.isEmpty else { return nil }
        return value
    }

    /// A `YES`/`NO` attribute (absent: `defaultValue`).
    func flag(_ key: String, default defaultValue: Bool = false) -> Bool {
        guard let value = attributes[key] else { return defaultValue }
        return value == "YES" || value == "yes" || value == "true" || value == "1"
    }
}

/// Reads a model file's `contents` into a tree of ``ModelXMLElement`` with FoundationXML's
/// `XMLParser` (no external entities, no DTD loading). Runs on the calling thread.
enum ModelXMLTree {
    /// Parses `data`, read from `file`; a syntax error is a ``StrataError`` naming the file and line.
    static func parse(_ data: Data, file: URL) throws -> ModelXMLElement {
        // FoundationXML traps (a force unwrap in its element callback) when an element or
        // attribute name holds bytes that are not UTF-8, so such a file is refused before parsing.
        let bytes = [UInt8](data)
        if let offset = firstInvalidUTF8Byte(in: data) {
            throw ModelFileError.make(
                "The file is not UTF-8, the encoding Xcode writes: byte \(offset + 1) does not start a UTF-8 character", file: file,
                line: lineNumber(at: offset, in: bytes), element: "document")
        }
        // It also passes null pointers to strlen for a processing instruction with no data
        // (`<?x?>`) and for several declarations of a document type (an attribute without a
        // default, a notation, an unparsed entity). Model files have neither a document type nor
        // such instructions, so both are refused wherever their text appears.
        if let offset = firstEmptyProcessingInstruction(in: bytes) {
            throw ModelFileError.make(
                "A processing instruction has no data, which the XML parser cannot read", file: file, line: lineNumber(at: offset, in: bytes),
                element: "document")
        }
        if let offset = firstDocumentTypeDeclaration(in: bytes) {
            throw ModelFileError.make(
                "The file has a document type declaration (<!DOCTYPE>), which model files never have and the reader does not accept",
                file: file, line: lineNumber(at: offset, in: bytes), element: "document")
        }
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        let builder = TreeBuilder(parser: parser)
        parser.delegate = builder
        let succeeded = parser.parse()
        guard succeeded, builder.errorLine == nil, let root = builder.root, builder.stack.isEmpty else {
            // FoundationXML on Linux may accept a truncated document: an element left open is
            // reported here, at the last line read.
            let reason: String
            if let error = parser.parserError {
                reason = (error as NSError).localizedDescription
            } else if let open = builder.stack.last {
                reason = "the file ends before <\(open.name)> is closed"
            } else {
                reason = "there is no root element"
            }
            throw ModelFileError.make(
                "The XML is malformed (\(reason))", file: file, line: builder.errorLine ?? parser.lineNumber, element: builder.stack.last?.name ?? "document")
        }
        return root
    }

    /// The offset of the first byte of `data` that is not part of a well-formed UTF-8 character,
    /// or `nil` when all of it is UTF-8.
    static func firstInvalidUTF8Byte(in data: Data) -> Int? {
        guard String(validating: data, as: UTF8.self) == nil else { return nil }
        // Decoding with repair replaces each ill-formed sequence with U+FFFD; the first U+FFFD not
        // written as its own three bytes in the file marks the offset.
        let bytes = [UInt8](data)
        var offset = 0
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            if scalar == "\u{FFFD}", !bytes[offset...].starts(with: [0xEF, 0xBF, 0xBD]) { return offset }
            offset += UTF8.width(scalar)
        }
        return offset < bytes.count ? offset : nil
    }

    /// The 1-based line of byte `offset` of `bytes`.
    static func lineNumber(at offset: Int, in bytes: [UInt8]) -> Int {
        bytes[..<offset].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
    }

    /// The offset of the first text that reads as a processing instruction with nothing after its
    /// target (`<?target?>`), or `nil` when there is none. The search ignores context: such text
    /// inside a comment, a CDATA section or another instruction is refused too, because deciding
    /// what the XML parser will read as markup is exactly what a damaged file makes unreliable.
    static func firstEmptyProcessingInstruction(in bytes: [UInt8]) -> Int? {
        var index = 0
        while index + 1 < bytes.count {
            guard bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "?") else {
                index += 1
                continue
            }
            var end = index + 2
            while end < bytes.count, !" \t\r\n?".utf8.contains(bytes[end]) { end += 1 }
            if bytes[min(end, bytes.count)...].starts(with: "?>".utf8) { return index }
            index += 2
        }
        return nil
    }

    /// The offset of the first `<!DOCTYPE`, anywhere in `bytes`, or `nil` when there is none.
    static func firstDocumentTypeDeclaration(in bytes: [UInt8]) -> Int? {
        let marker = Array("<!DOCTYPE".utf8)
        guard bytes.count >= marker.count else { return nil }
        return (0...(bytes.count - marker.count)).first { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }
    }

    private final class TreeBuilder: NSObject, XMLParserDelegate {
        unowned let parser: XMLParser
        var root: ModelXMLElement?
        var stack: [ModelXMLElement] = []

        init(parser: XMLParser) { self.parser = parser }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
            attributes attributeDict: [String: String] = [:]
        ) {
            let element = ModelXMLElement(name: elementName, attributes: attributeDict, line: parser.lineNumber)
            if let parent = stack.last { parent.children.append(element) } else if root == nil { root = element }
            stack.append(element)
        }

        /// The line of the first parse error the parser reported.
        var errorLine: Int?

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            if errorLine == nil { errorLine = parser.lineNumber }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            _ = stack.popLast()
        }
    }
}

/// The errors of the model-file reader: every one names the file, the line and the element.
enum ModelFileError {
    /// A ``StrataError`` (code 134060, Core Data's generic error) for a problem at `line` of `file`
    /// in element `element`; `line` 0 means the problem is not at one line (a missing file).
    static func make(_ what: String, file: URL, line: Int, element: String, entity: String? = nil, key: String? = nil) -> StrataError {
        let place = line > 0 ? "\(file.path):\(line)" : file.path
        var error = StrataError(
            code: StrataError.Code.coreData, message: "Model file \(place), element <\(element)>: \(what)", entityName: entity, key: key, url: file)
        error.line = line > 0 ? line : nil
        return error
    }
}
