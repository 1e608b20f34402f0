import Foundation
import Strata
import StrataTestSupport

/// A temporary `.xcdatamodel` (or bundle) written from strings, removed when released.
final class ModelFileScratch {
    let directory = TemporaryDirectory(prefix: "strata-modelfile")

    /// Writes `xml` as `<name>.xcdatamodel/contents` (inside `bundle` when given) and returns
    /// the version directory.
    @discardableResult
    func writeVersion(_ xml: String, name: String = "Model", bundle: String? = nil) throws -> URL {
        var base = directory.url
        if let bundle { base = base.appendingPathComponent("\(bundle).xcdatamodeld") }
        let version = base.appendingPathComponent("\(name).xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data(xml.utf8).write(to: version.appendingPathComponent("contents"))
        return version
    }

    /// Writes a bundle's `.xccurrentversion` naming `current`.
    func writeCurrentVersion(_ current: String, bundle: String) throws -> URL {
        let url = directory.url.appendingPathComponent("\(bundle).xcdatamodeld")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>_XCCurrentVersionName</key>
            \t<string>\(current)</string>
            </dict>
            </plist>
            """
        try Data(plist.utf8).write(to: url.appendingPathComponent(".xccurrentversion"))
        return url
    }

    /// A model file around `body` (entities and the rest of a `<model>`).
    static func model(_ body: String, attributes: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" \(attributes)>
        \(body)
        </model>
        """
    }
}

/// Inserting one object of every concrete entity, with values that pass validation.
enum ModelFiller {
    /// A value of `attribute`'s type within its bounds, length and pattern.
    static func sampleValue(for attribute: AttributeDescription, seed: Int = 1) -> Any? {
        switch attribute.type {
        case .integer16, .integer32, .integer64, .decimal, .double, .float:
            var number = Double(seed)
            if let min = attribute.minValue.flatMap(double) { number = Swift.max(number, min) }
            if let max = attribute.maxValue.flatMap(double) { number = Swift.min(number, max) }
            switch attribute.type {
            case .integer16: return Int16(number)
            case .integer32: return Int32(number)
            case .integer64: return Int64(number)
            case .decimal: return Decimal(number)
            case .double: return number
            default: return Float(number)
            }
        case .string:
            let length = Swift.max(attribute.minLength ?? 1, 1)
            var candidates = [String(repeating: "1", count: length), String(repeating: "a", count: length)]
            if attribute.maxLength == nil && attribute.regularExpression == nil { candidates.insert("v\(seed)" + String(repeating: "1", count: length), at: 0) }
            if attribute.regularExpression != nil { candidates = ["1234567890123", "9780000000000", "a", "a@b.com"] + candidates }
            for candidate in candidates {
                guard let pattern = attribute.regularExpression else { return candidate }
                if candidate.range(of: "^(?:\(pattern))$", options: .regularExpression) != nil { return candidate }
            }
            return candidates.last
        case .boolean: return true
        case .date:
            if let min = attribute.minValue as? Date { return min }
            return Date(timeIntervalSinceReferenceDate: 1_000 + Double(seed))
        case .binaryData: return Data([1, 2, 3])
        case .uuid: return UUID()
        case .uri: return URL(string: "https://example.com/x")
        case .transformable: return ["a": "b"]
        case .undefined, .objectID: return nil
        }
    }

    private static func double(_ value: Any) -> Double? {
        switch value {
        case let v as Int16: return Double(v)
        case let v as Int32: return Double(v)
        case let v as Int64: return Double(v)
        case let v as Int: return Double(v)
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as Decimal: return NSDecimalNumber(decimal: v).doubleValue
        default: return nil
        }
    }

    /// Inserts one object per concrete entity of `model`, fills required attributes without a
    /// default and required relationships, and saves. Returns the number of objects saved.
    static func insertOneOfEach(into stack: TestStack) throws -> Int {
        let context = stack.newContext()
        return try context.performAndWait {
            var objects: [String: ManagedObject] = [:]
            let concrete = stack.model.entities.filter { !$0.isAbstract }
            for entity in concrete { objects[entity.name] = try context.insertNewObject(of: entity) }
            for (number, entity) in concrete.enumerated() {
                let object = objects[entity.name]!
                // Constrained attributes get values of their own: sibling entities share their
                // parent's uniqueness constraints.
                var constrained = Set<String>()
                var current: EntityDescription? = entity
                while let level = current {
                    constrained.formUnion(level.uniquenessConstraints.flatMap { $0 })
                    current = level.superentity
                }
                for property in entity.allProperties where !property.isTransient {
                    if let attribute = property as? AttributeDescription,
                        constrained.contains(attribute.name) || (!attribute.isOptional && attribute.defaultValue == nil)
                    {
                        object.setValue(sampleValue(for: attribute, seed: number + 1), forKey: attribute.name)
                    } else if let relationship = property as? RelationshipDescription, !relationship.isOptional || relationship.minCount > 0,
                        let destination = relationship.destinationEntity,
                        let target = objects[destination.name] ?? concrete.first(where: { $0.isKindOf(entity: destination) }).flatMap({ objects[$0.name] })
                    {
                        if !relationship.isToMany {
                            object.setValue(target, forKey: relationship.name)
                        } else if relationship.isOrdered {
                            object.mutableOrderedSetValue(forKey: relationship.name).add(target)
                        } else {
                            object.mutableSetValue(forKey: relationship.name).add(target)
                        }
                    }
                }
            }
            try context.save()
            return objects.count
        }
    }
}
