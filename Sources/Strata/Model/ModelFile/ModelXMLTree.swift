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
