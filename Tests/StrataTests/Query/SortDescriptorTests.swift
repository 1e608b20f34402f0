import Foundation
import Strata
import StrataTestSupport
import Testing

/// `ObjectSortDescriptor`: the three comparators, reversal, several descriptors and key paths
/// through to-one relationships give the same order in SQL, in the in-memory store and over
/// unsaved objects (sorted in memory), and through `compare(_:_:)`.
@Suite("Sort descriptors")
struct SortDescriptorTests {
    /// (name, size, folder); folder nil for "none".
    static let files: [(String, Int64?, String?)] = [
        ("file10", 10, "Docs"), ("file2", 2, "docs"), ("File1", 1, "Éte"), ("file02", 2, nil), ("B", 5, "Docs"),
        ("a", nil, "ete"), ("É", 5, "Docs"), ("e", 7, "Zeta"), ("file2", 3, "Zeta"), ("ﬁle3", 4, nil), ("", 0, "Docs"),
    ]

    static func model() -> ManagedObjectModel {
        let file = EntityDescription(name: "File")
        let folder = EntityDescription(name: "Folder")
        file.properties = [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "size", type: .integer64),
            RelationshipDescription(name: "folder", destination: folder, inverse: "files"),
        ]
        folder.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "files", destination: file, inverse: "folder", toMany: true),
        ]
        return ManagedObjectModel(entities: [file, folder])
    }

    static func insert(into context: ManagedObjectContext, model: ManagedObjectModel) throws {
        let fileEntity = try #require(model.entitiesByName["File"])
        let folderEntity = try #require(model.entitiesByName["Folder"])
        var folders: [String: ManagedObject] = [:]
        for (name, size, folderName) in files {
            let file = ManagedObject(entity: fileEntity, insertInto: context)
            file.setValue(name, forKey: "name")
            file.setValue(size, forKey: "size")
            if let folderName {
                if folders[folderName] == nil {
                    let folder = ManagedObject(entity: folderEntity, insertInto: context)
                    folder.setValue(folderName, forKey: "name")
                    folders[folderName] = folder
                }
                file.setValue(folders[folderName], forKey: "folder")
            }
        }
    }

    enum Engine: String, CaseIterable, CustomStringConvertible {
        case sqlite, inMemoryStore, unsavedObjects
        var description: String { rawValue }
    }

    /// A context whose files are saved in a SQLite or in-memory store, or inserted and unsaved.
    func context(_ engine: Engine) throws -> (ManagedObjectContext, TestStack) {
        let stack = try TestStack(model: Self.model(), kind: engine == .sqlite ? .sqlite : .inMemory)
        let context = stack.newContext()
        try context.performAndWait {
            try Self.insert(into: context, model: stack.model)
            if engine != .unsavedObjects { try context.save() }
        }
        return (engine == .unsavedObjects ? context : stack.newContext(), stack)
    }

    func order(_ context: ManagedObjectContext, _ sorts: [ObjectSortDescriptor]) throws -> [String] {
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "File")
            request.sortDescriptors = sorts
            return try context.fetch(request).map { file in
                "\(file.value(forKey: "name") as? String ?? "-")/\((file.value(forKey: "size") as? Int64).map(String.init) ?? "-")"
            }
        }
    }

    @Test("comparators, reversal, several descriptors, to-one key paths", arguments: Engine.allCases)
    func comparators(engine: Engine) throws {
        let (context, stack) = try context(engine)
        _ = stack
        // Byte-wise: "" < uppercase < lowercase < ﬁ and É (multi-byte UTF-8).
        #expect(
            try order(context, [ObjectSortDescriptor(key: "name")]) == [
                "/0", "B/5", "File1/1", "a/-", "e/7", "file02/2", "file10/10", "file2/2", "file2/3", "É/5", "ﬁle3/4",
            ])
        // Case-insensitive (ties byte-wise): "É" folds to "é", after the ASCII letters.
        #expect(
            try order(context, [ObjectSortDescriptor(key: "name", ascending: true, comparator: .caseInsensitive)]) == [
                "/0", "a/-", "B/5", "e/7", "file02/2", "File1/1", "file10/10", "file2/2", "file2/3", "ﬁle3/4", "É/5",
            ])
        // Localized standard: natural numbers, case and accents ignored ("file2" < "file10"; with
        // equal numbers, fewer leading zeros first: "file2" < "file02"; ties byte-wise).
        let natural = ObjectSortDescriptor(key: "name", ascending: true, comparator: .localizedStandard)
        #expect(
            try order(context, [natural]) == [
                "/0", "a/-", "B/5", "e/7", "É/5", "File1/1", "file2/2", "file2/3", "file02/2", "ﬁle3/4", "file10/10",
            ])
        #expect(
            try order(context, [natural.reversedSortDescriptor]) == [
                "file10/10", "ﬁle3/4", "file02/2", "file2/2", "file2/3", "File1/1", "É/5", "e/7", "B/5", "a/-", "/0",
            ])
        // Several descriptors: size descending (nil last when descending), then name.
        #expect(
            try order(context, [ObjectSortDescriptor(key: "size", ascending: false), natural]) == [
                "file10/10", "e/7", "B/5", "É/5", "ﬁle3/4", "file2/3", "file2/2", "file02/2", "File1/1", "/0", "a/-",
            ])
        // Through a to-one (nil folder first), then by name.
        let byFolder = ObjectSortDescriptor(key: "folder.name", ascending: true, comparator: .localizedStandard)
        #expect(
            try order(context, [byFolder, ObjectSortDescriptor(key: "name")]) == [
                "file02/2", "ﬁle3/4", "/0", "B/5", "file10/10", "É/5", "file2/2", "a/-", "File1/1", "e/7", "file2/3",
            ])
        #expect(
            try order(context, [byFolder.reversedSortDescriptor, ObjectSortDescriptor(key: "size", ascending: false)]) == [
                "e/7", "file2/3", "File1/1", "a/-", "file2/2", "file10/10", "B/5", "É/5", "/0", "ﬁle3/4", "file02/2",
            ])
    }

    @Test("sorting works with fetchLimit and fetchOffset and with unsaved changes mixed in", arguments: [TestStack.Kind.sqlite, .inMemory])
    func limitsAndPending(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            try Self.insert(into: context, model: stack.model)
            try context.save()
            let entity = try #require(stack.model.entitiesByName["File"])
            let extra = ManagedObject(entity: entity, insertInto: context)
            extra.setValue("file3", forKey: "name")
            extra.setValue(Int64(8), forKey: "size")
        }
        let natural = ObjectSortDescriptor(key: "name", ascending: true, comparator: .localizedStandard)
        try context.performAndWait { () throws -> Void in
            let request = FetchRequest<ManagedObject>(entityName: "File")
            request.sortDescriptors = [natural]
            request.fetchOffset = 7
            request.fetchLimit = 3
            #expect(try context.fetch(request).compactMap { $0.value(forKey: "name") as? String } == ["file2", "file02", "file3"])
        }
    }

    @Test("compare(_:_:) orders objects and dictionaries like fetches")
    func compareFunction() {
        let natural = ObjectSortDescriptor(key: "name", ascending: true, comparator: .localizedStandard)
        #expect(natural.compare(["name": "file2"], ["name": "file10"]) == .orderedAscending)
        #expect(natural.reversedSortDescriptor.compare(["name": "file2"], ["name": "file10"]) == .orderedDescending)
        #expect(ObjectSortDescriptor(key: "name").compare(["name": "file2"], ["name": "file10"]) == .orderedDescending)
        #expect(ObjectSortDescriptor(key: "name", comparator: .caseInsensitive).compare(["name": "a"], ["name": "B"]) == .orderedAscending)
        #expect(ObjectSortDescriptor(key: "name").compare(["name": "a"], ["name": "B"]) == .orderedDescending)
        #expect(ObjectSortDescriptor(key: "size").compare(["size": 2], [String: Any]()) == .orderedDescending)
        #expect(ObjectSortDescriptor(key: "folder.name").compare(["folder": ["name": "a"]], ["folder": ["name": "b"]]) == .orderedAscending)
        #expect(natural.description == "(name, ascending, localizedStandard)")
    }

    // Core Data sorts by a to-many's @max / @min / @sum / @avg as numbers; for a decimal
    // attribute that means numerically, not by the decimal's text ("9" < "10" < "100").
    @Test("a decimal aggregate sorts numerically", arguments: TestStack.Kind.allCases)
    func decimalAggregateSort(kind: TestStack.Kind) throws {
        let order = EntityDescription(name: "Order")
        let line = EntityDescription(name: "Line")
        order.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "lines", destination: line, inverse: "order", toMany: true),
        ]
        line.properties = [
            AttributeDescription(name: "amount", type: .decimal),
            RelationshipDescription(name: "order", destination: order, inverse: "lines"),
        ]
        let stack = try TestStack(model: ManagedObjectModel(entities: [order, line]), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            for (name, amounts) in [("hundred", ["100", "1"]), ("nine", ["9", "2.5"]), ("ten", ["10", "0.5"])] {
                let owner = ManagedObject(entity: order, insertInto: context)
                owner.setValue(name, forKey: "name")
                for amount in amounts {
                    let item = ManagedObject(entity: line, insertInto: context)
                    item.setValue(Decimal(string: amount), forKey: "amount")
                    item.setValue(owner, forKey: "order")
                }
            }
            try context.save()
        }
        let reader = stack.newContext()
        for (key, expected) in [
            ("lines.@max.amount", ["nine", "ten", "hundred"]), ("lines.@min.amount", ["ten", "hundred", "nine"]),
            ("lines.@sum.amount", ["ten", "nine", "hundred"]),
        ] {
            let names = try reader.performAndWait { () throws -> [String] in
                let request = FetchRequest<ManagedObject>(entityName: "Order")
                request.sortDescriptors = [ObjectSortDescriptor(key: key)]
                return try reader.fetch(request).compactMap { $0.value(forKey: "name") as? String }
            }
            #expect(names == expected, "sorted by \(key)")
        }
    }

    @Test("a sort key must reach a stored attribute: other keys fail at fetch, naming the entity and key", arguments: [TestStack.Kind.sqlite, .inMemory])
    func refusedKeys(kind: TestStack.Kind) throws {
        // Core Data refuses a fetch sorted by a key its store cannot order by: a key the entity
        // does not have, a transient property (not in the store), a to-many relationship. Strata
        // refuses a bare relationship too, and names the entity and key in each error.
        let model = Self.model()
        let file = try #require(model.entitiesByName["File"])
        let draft = AttributeDescription(name: "draft", type: .string)
        draft.isTransient = true
        file.properties.append(draft)
        let stack = try TestStack(model: model, kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            try Self.insert(into: context, model: stack.model)
            try context.save()
            for (key, entity, name, message) in [
                ("nope", "File", "nope", "no property"), ("draft", "File", "draft", "Transient attribute"),
                ("folder", "File", "folder", "names a relationship"), ("folder.nope", "Folder", "nope", "no property"),
                ("folder.files", "File", "folder.files", "to-many"),
            ] {
                let request = FetchRequest<ManagedObject>(entityName: "File")
                request.sortDescriptors = [ObjectSortDescriptor(key: "name"), ObjectSortDescriptor(key: key)]
                let error = try #require(throws: StrataError.self, "sorted by \(key)") { try context.fetch(request) }
                #expect(error.entityName == entity, "sorted by \(key): \(error)")
                #expect(error.key == name, "sorted by \(key): \(error)")
                #expect(error.message.contains(message), "sorted by \(key): \(error)")
            }
            // A stored attribute, plain or through a to-one, sorts.
            let request = FetchRequest<ManagedObject>(entityName: "File")
            request.sortDescriptors = [ObjectSortDescriptor(key: "folder.name"), ObjectSortDescriptor(key: "size")]
            #expect(try context.fetch(request).count == Self.files.count)
        }
    }
}
