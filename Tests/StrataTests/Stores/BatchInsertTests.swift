import Foundation
import Strata
import StrataTestSupport
import Testing

/// A typed subclass, filled by a `managedObjectHandler`.
final class BatchQuake: ManagedObject {
    @Attribute("code") var code: String
    @Attribute("magnitude") var magnitude: Double
    @Attribute("place") var place: String?
}

/// `BatchInsertRequest` through `execute(_:)` (issue #14, item 4), on both stores. Core Data's
/// facts come from Apple's NSBatchInsertRequest documentation (`objectsToInsert`: dictionaries
/// keyed by attribute name; `init(entity:dictionaryHandler:)` and
/// `init(entity:managedObjectHandler:)`: "Core Data repeatedly calls the provided closure until
/// it returns true"; `NSBatchInsertRequestResultType`: status, count or object IDs) and from the
/// WWDC 2020 session "Core Data: Sundries and maxims" (a batch insert is one transaction in the
/// store, creates no managed objects, posts no save notification, and with uniqueness
/// constraints upserts under a merge policy where the new values win).
@Suite("Batch insert requests")
struct BatchInsertTests {
    /// Region (constraint on `name`) with sub-entity Country; Quake (constraint on `code`, a
    /// to-one `region`, a transient `note`); Reading (no constraint) with sub-entity
    /// Calibration; Shape, abstract.
    static func model() -> ManagedObjectModel {
        let region = EntityDescription(name: "Region")
        let country = EntityDescription(name: "Country")
        region.subentities = [country]
        let quake = EntityDescription(name: "Quake", managedObjectClass: BatchQuake.self)
        let reading = EntityDescription(name: "Reading")
        let calibration = EntityDescription(name: "Calibration")
        reading.subentities = [calibration]
        let shape = EntityDescription(name: "Shape")
        shape.isAbstract = true
        let circle = EntityDescription(name: "Circle")
        shape.subentities = [circle]
        region.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "population", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            RelationshipDescription(name: "quakes", destination: quake, inverse: "region", toMany: true),
        ]
        region.uniquenessConstraints = [["name"]]
        country.properties = [AttributeDescription(name: "isoCode", type: .string)]
        let magnitude = AttributeDescription(name: "magnitude", type: .double, isOptional: false, defaultValue: 0.0)
        magnitude.maxValue = 10.0  // a validation rule a batch insert does not run
        let note = AttributeDescription(name: "note", type: .string)
        note.isTransient = true
        quake.properties = [
            AttributeDescription(name: "code", type: .string, isOptional: false),
            magnitude,
            AttributeDescription(name: "place", type: .string),
            AttributeDescription(name: "depth", type: .integer16),
            AttributeDescription(name: "time", type: .date),
            AttributeDescription(name: "felt", type: .boolean, isOptional: false, defaultValue: false),
            note,
            RelationshipDescription(name: "region", destination: region, inverse: "quakes"),
        ]
        quake.uniquenessConstraints = [["code"]]
        reading.properties = [
            AttributeDescription(name: "value", type: .integer32, isOptional: false, defaultValue: Int32(0)),
            AttributeDescription(name: "label", type: .string),
        ]
        calibration.properties = [AttributeDescription(name: "offset", type: .double)]
        shape.properties = [AttributeDescription(name: "size", type: .double)]
        return ManagedObjectModel(entities: [region, country, quake, reading, calibration, shape, circle])
    }

    /// Region Japan (population 5) holding quake q1 (magnitude 1, place "Old", felt); country France.
    static func seed(_ stack: TestStack) throws {
        let context = stack.newContext()
        try context.performAndWait {
            func insert(_ entity: String) -> ManagedObject { ManagedObject(entity: stack.model.entitiesByName[entity]!, insertInto: context) }
            let japan = insert("Region")
            japan.setValue("Japan", forKey: "name")
            japan.setValue(Int64(5), forKey: "population")
            let france = insert("Country")
            france.setValue("France", forKey: "name")
            let q1 = insert("Quake")
            q1.setValue("q1", forKey: "code")
            q1.setValue(1.0, forKey: "magnitude")
            q1.setValue("Old", forKey: "place")
            q1.setValue(true, forKey: "felt")
            q1.setValue(japan, forKey: "region")
            try context.save()
        }
    }

    /// code → (magnitude, place, felt, region name, entity name) as a fresh context reads them.
    static func quakes(_ stack: TestStack) throws -> [String: (Double, String?, Bool, String?)] {
        let context = stack.newContext()
        return try context.performAndWait {
            var result: [String: (Double, String?, Bool, String?)] = [:]
            for quake in try context.fetch(FetchRequest<ManagedObject>(entityName: "Quake")) {
                let region = quake.value(forKey: "region") as? ManagedObject
                result[quake.value(forKey: "code") as? String ?? "?"] = (
                    quake.value(forKey: "magnitude") as? Double ?? -1, quake.value(forKey: "place") as? String, quake.value(forKey: "felt") as? Bool ?? false,
                    region?.value(forKey: "name") as? String
                )
            }
            return result
        }
    }

    /// (entity, value, label, offset) of every Reading row, by value then label.
    static func readings(_ stack: TestStack) throws -> [String] {
        let context = stack.newContext()
        return try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Reading")).map { reading in
                let offset = reading.entity.name == "Calibration" ? " \(reading.value(forKey: "offset") as? Double ?? -1)" : ""
                return "\(reading.entity.name) \(reading.value(forKey: "value") as? Int32 ?? -1) \(reading.value(forKey: "label") as? String ?? "nil")\(offset)"
            }.sorted()
        }
    }

    static func attempt(_ context: ManagedObjectContext, _ request: BatchInsertRequest) -> StrataError? {
        context.performAndWait {
            do {
                _ = try context.execute(request)
                return nil
            } catch {
                return error as? StrataError
            }
        }
    }

    /// Core Data: `objectsToInsert` holds one dictionary per object, keyed by attribute name;
    /// attributes not given take their default; the result is a status, a count or the IDs of
    /// the new objects (NSBatchInsertRequest, NSBatchInsertRequestResultType).
    @Test("rows from dictionaries without a constraint: defaults, sub-entities, the three result types", arguments: TestStack.Kind.allCases)
    func insertsWithoutConstraint(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let context = stack.newContext()
        let ids = try context.performAndWait {
            let insert = BatchInsertRequest(entityName: "Reading", objects: [["value": 1, "label": "a"], ["value": Int32(2)], ["label": "c"]])
            insert.resultType = .objectIDs
            let result = try #require(try context.execute(insert) as? BatchInsertResult)
            #expect(result.resultType == .objectIDs)
            let ids = try #require(result.result as? [ManagedObjectID])
            #expect(ids.count == 3 && Set(ids).count == 3 && ids.allSatisfy { $0.entity.name == "Reading" && !$0.isTemporaryID })
            // No object was created in the context, as in Core Data.
            #expect(context.registeredObjects.isEmpty)

            let counted = BatchInsertRequest(entity: try #require(stack.model.entitiesByName["Calibration"]), objects: [["value": 5, "offset": 0.5], ["offset": 1.5]])
            counted.resultType = .count
            let countedResult = try context.execute(counted) as? BatchInsertResult
            #expect(countedResult?.result as? Int == 2)

            // Values wrapped in Optionals (as a dictionary literal of optionals holds them).
            let wrapped = BatchInsertRequest(entityName: "Reading", objects: [["value": Optional(Int32(4)) as Any, "label": Optional<String>.none as Any]])
            wrapped.resultType = .count
            let wrappedResult = try context.execute(wrapped) as? BatchInsertResult
            #expect(wrappedResult?.result as? Int == 1)

            let status = BatchInsertRequest(entityName: "Reading", objects: [])
            let statusResult = try context.execute(status) as? BatchInsertResult
            #expect(statusResult?.result as? Bool == true)
            return ids
        }
        #expect(
            try Self.readings(stack) == ["Calibration 0 nil 1.5", "Calibration 5 nil 0.5", "Reading 0 c", "Reading 1 a", "Reading 2 nil", "Reading 4 nil"])
        // The IDs name the rows; a later save takes new keys and edits an inserted row as any other.
        let editor = stack.newContext()
        try editor.performAndWait {
            let first = try editor.existingObject(with: ids[0])
            #expect(first.value(forKey: "label") as? String == "a")
            first.setValue("edited", forKey: "label")
            let added = ManagedObject(entity: try #require(stack.model.entitiesByName["Reading"]), insertInto: editor)
            added.setValue(Int32(9), forKey: "value")
            try editor.save()
            #expect(!ids.contains(added.objectID))
        }
        #expect(try Self.readings(stack).count == 7)
        // A child context runs it on the coordinator at the root of its tree.
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = editor
        try child.performAndWait {
            let insert = BatchInsertRequest(entityName: "Reading", objects: [["value": 7]])
            insert.resultType = .count
            let insertResult = try child.execute(insert) as? BatchInsertResult
            #expect(insertResult?.result as? Int == 1)
        }
        #expect(try Self.readings(stack).contains("Reading 7 nil"))
    }

    /// Core Data: the handler forms call the closure until it returns true, then save the data
    /// (NSBatchInsertRequest `init(entity:dictionaryHandler:)`, `init(entity:managedObjectHandler:)`);
    /// the values of the call that returns true are not inserted.
    @Test("dictionaryHandler and managedObjectHandler", arguments: TestStack.Kind.allCases)
    func handlers(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let context = stack.newContext()
        let time = Date(timeIntervalSinceReferenceDate: 1_000)
        try context.performAndWait {
            var index = 0
            let byDictionary = BatchInsertRequest(entityName: "Quake") { (row: NSMutableDictionary) -> Bool in
                #expect(row.count == 0)  // emptied before each call
                row["code"] = "d\(index)"
                row["magnitude"] = NSNumber(value: Double(index) + 0.5)
                row["time"] = time
                row["place"] = index == 0 ? NSNull() : "P\(index)"
                index += 1
                return index > 3  // the fourth call's row is not inserted
            }
            byDictionary.resultType = .count
            let byDictionaryResult = try context.execute(byDictionary) as? BatchInsertResult
            #expect(byDictionaryResult?.result as? Int == 3)

            var calls = 0
            let byObject = BatchInsertRequest(entityName: "Quake") { (object: ManagedObject) -> Bool in
                let quake = object as? BatchQuake
                #expect(object.managedObjectContext == nil)
                #expect(quake?.magnitude == 0 && quake?.place == nil)  // back to the defaults before each call
                calls += 1
                guard calls <= 2 else { return true }
                quake?.code = "m\(calls)"
                quake?.magnitude = Double(calls)
                object.setValue(calls == 1 ? "typed" : nil, forKey: "place")
                object.setValue(true, forKey: "felt")
                return false
            }
            byObject.resultType = .objectIDs
            let ids = try #require((try context.execute(byObject) as? BatchInsertResult)?.result as? [ManagedObjectID])
            #expect(ids.count == 2 && calls == 3)
        }
        let rows = try Self.quakes(stack)
        #expect(rows.count == 5)
        #expect(rows["d0"]?.0 == 0.5 && rows["d0"]?.1 == nil && rows["d2"]?.0 == 2.5 && rows["d2"]?.1 == "P2")
        #expect(rows["m1"]?.0 == 1 && rows["m1"]?.1 == "typed" && rows["m1"]?.2 == true && rows["m2"]?.1 == nil)
        let reader = stack.newContext()
        try reader.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Quake")
            request.predicate = ObjectPredicate(format: "code == 'd1'")
            let found = try reader.fetch(request)
            #expect(found.first?.value(forKey: "time") as? Date == time)
        }
    }

    /// Core Data (WWDC 2020, "Core Data: Sundries and maxims"; NSBatchInsertRequest with a
    /// uniqueness constraint and a merge policy where the new values win): a row whose
    /// constrained values match a stored row updates that row instead of inserting one — all of
    /// the entity's attributes take the new row's values (those not given their defaults), the
    /// row keeps its ID and relationships; rows of one request that match each other: the later
    /// wins. The updated row's version moves on, so a stale edited copy conflicts at save.
    @Test("with a uniqueness constraint: upsert, the later row wins, IDs name the existing row", arguments: TestStack.Kind.allCases)
    func upsertsOnConstraint(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        try Self.seed(stack)
        let editor = stack.newContext(name: "editor")
        let (edited, q1) = try editor.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Quake")
            let quake = try #require(try editor.fetch(request).first)
            quake.setValue("Mine", forKey: "place")
            return (quake, quake.objectID)
        }
        // Another context holds the row (the row cache keeps it while an object uses it).
        let other = stack.newContext()
        let held = other.performAndWait { () -> ManagedObject in
            let object = other.object(with: q1)
            _ = object.value(forKey: "magnitude")
            return object
        }
        let context = stack.newContext()
        let ids = try context.performAndWait {
            let insert = BatchInsertRequest(
                entityName: "Quake",
                objects: [["code": "q1", "magnitude": 5.0], ["code": "q2", "magnitude": 2.0], ["code": "q3"], ["code": "q2", "magnitude": 3.0, "place": "later"]])
            insert.resultType = .objectIDs
            return try #require((try context.execute(insert) as? BatchInsertResult)?.result as? [ManagedObjectID])
        }
        #expect(ids.count == 3)
        #expect(ids.first == q1)
        let rows = try Self.quakes(stack)
        #expect(rows.count == 3)
        let first = try #require(rows["q1"])
        #expect(first.0 == 5.0 && first.1 == nil && first.2 == false)  // every attribute replaced, defaults for those not given
        #expect(first.3 == "Japan")  // relationships stay
        #expect(rows["q2"]?.0 == 3.0 && rows["q2"]?.1 == "later")
        // A context faulting the row in now reads the new values, never a cached old row.
        let third = stack.newContext()
        third.performAndWait { #expect(third.object(with: q1).value(forKey: "magnitude") as? Double == 5.0) }
        // The edited copy is stale: its save conflicts (error merge policy).
        let failure = editor.performAndWait { () -> StrataError? in
            do {
                try editor.save()
                return nil
            } catch {
                return error as? StrataError
            }
        }
        #expect(failure?.code == StrataError.Code.managedObjectMerge)
        // Count result: each row once, inserted or updated.
        try context.performAndWait {
            let again = BatchInsertRequest(entityName: "Quake", objects: [["code": "q1", "magnitude": 6.0], ["code": "q4"]])
            again.resultType = .count
            let againResult = try context.execute(again) as? BatchInsertResult
            #expect(againResult?.result as? Int == 2)
        }
        #expect(try Self.quakes(stack)["q1"]?.0 == 6.0)
        withExtendedLifetime((edited, held)) {}
    }

    /// A constraint declared by an ancestor covers its whole tree (as the store's unique index
    /// does): a row matching a stored row of another entity cannot update it — a constraint
    /// conflict (133021, NSManagedObjectConstraintMergeError), and nothing is written.
    @Test("a row matching a stored row of another entity is a constraint conflict", arguments: TestStack.Kind.allCases)
    func constraintAcrossTree(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        try Self.seed(stack)
        let context = stack.newContext()
        let failure = Self.attempt(context, BatchInsertRequest(entityName: "Region", objects: [["name": "Atlantis"], ["name": "France", "population": Int64(9)]]))
        #expect(failure?.code == StrataError.Code.managedObjectConstraintMerge)
        #expect(failure?.message.contains("row 1") == true)
        try context.performAndWait {
            let regions = try context.fetch(FetchRequest<ManagedObject>(entityName: "Region"))
            #expect(Set(regions.compactMap { $0.value(forKey: "name") as? String }) == ["Japan", "France"])
            #expect(regions.first { $0.value(forKey: "name") as? String == "France" }?.entity.name == "Country")
        }
        // A Country row matching the stored Country updates it.
        #expect(Self.attempt(context, BatchInsertRequest(entityName: "Country", objects: [["name": "France", "isoCode": "FR"]])) == nil)
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Country")
            let countries = try context.fetch(request)
            #expect(countries.map { $0.value(forKey: "isoCode") as? String } == ["FR"])
        }
    }

    /// Core Data: a batch insert sets attributes only (no relationships) and runs no validation
    /// rules (WWDC 2020, "Core Data: Sundries and maxims": no managed objects are created).
    /// Strata refuses what cannot be stored — unknown keys, relationships, transient
    /// attributes, wrong types, nil or no value for a required attribute, integers out of range,
    /// an abstract entity — before anything is written, naming the row and the key.
    @Test("bad values are errors and nothing is written; validation rules are not run", arguments: TestStack.Kind.allCases)
    func badValuesWriteNothing(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        try Self.seed(stack)
        let context = stack.newContext()
        let before = try Self.quakes(stack)
        func rows(_ bad: [String: Any]) -> BatchInsertRequest {
            BatchInsertRequest(entityName: "Quake", objects: [["code": "ok1"], ["code": "ok2", "magnitude": 2.0], bad])
        }
        let unknown = Self.attempt(context, rows(["code": "x", "nope": 1]))
        #expect(unknown?.key == "nope" && unknown?.message.contains("row 2") == true)
        #expect(Self.attempt(context, rows(["code": "x", "region": "Japan"]))?.key == "region")
        #expect(Self.attempt(context, rows(["code": "x", "note": "transient"]))?.key == "note")
        let wrongType = Self.attempt(context, rows(["code": "x", "magnitude": "big"]))
        #expect(wrongType?.key == "magnitude" && wrongType?.code == StrataError.Code.managedObjectValidation)
        #expect(Self.attempt(context, rows(["code": NSNull()]))?.code == StrataError.Code.validationMissingMandatoryProperty)
        let missing = Self.attempt(context, rows(["magnitude": 1.0]))
        #expect(missing?.code == StrataError.Code.validationMissingMandatoryProperty && missing?.key == "code")
        #expect(Self.attempt(context, rows(["code": "x", "depth": 70_000]))?.code == StrataError.Code.validationNumberTooLarge)
        #expect(Self.attempt(context, rows(["code": "x", "felt": 2]))?.key == "felt")
        #expect(Self.attempt(context, BatchInsertRequest(entityName: "Shape", objects: [["size": 1.0]])) != nil)  // abstract
        #expect(Self.attempt(context, BatchInsertRequest(entityName: "Nothing", objects: [["a": 1]])) != nil)
        // Handlers: a value its setter refused, a relationship, a stray key.
        var calls = 0
        let outOfRange = BatchInsertRequest(entityName: "Quake") { (object: ManagedObject) -> Bool in
            calls += 1
            object.setValue("h\(calls)", forKey: "code")
            object.setValue(calls == 2 ? Int16.max : Int16(1), forKey: "depth")
            if calls == 2 { object.setValue(Int64(70_000), forKey: "depth") }
            return calls > 3
        }
        let rangeFailure = Self.attempt(context, outOfRange)
        #expect(rangeFailure?.key == "depth" && rangeFailure?.message.contains("row 1") == true)
        let region = try context.performAndWait { try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Region")).first) }
        let withRelationship = BatchInsertRequest(entityName: "Quake") { (object: ManagedObject) -> Bool in
            object.setValue("r", forKey: "code")
            object.setValue(region, forKey: "region")
            return false
        }
        #expect(Self.attempt(context, withRelationship)?.key == "region")
        #expect(context.performAndWait { region.value(forKey: "quakes") as? Set<ManagedObject> }?.count == 1)  // the live object is untouched
        let strayKey = BatchInsertRequest(entityName: "Quake") { (row: NSMutableDictionary) -> Bool in
            row[3] = "three"
            return false
        }
        #expect(Self.attempt(context, strayKey) != nil)
        let both = BatchInsertRequest(entityName: "Quake", objects: [["code": "b"]])
        both.dictionaryHandler = { _ in true }
        #expect(Self.attempt(context, both) != nil)
        #expect(try Self.quakes(stack).mapValues { "\($0)" } == before.mapValues { "\($0)" })
        // Validation rules are not run: 12 exceeds magnitude's maximum of 10 but is stored.
        #expect(Self.attempt(context, BatchInsertRequest(entityName: "Quake", objects: [["code": "big", "magnitude": 12.0]])) == nil)
        #expect(try Self.quakes(stack)["big"]?.0 == 12.0)
    }

    /// Strata's option, as for batch updates: with `mergesChangesIntoContexts`, every context
    /// merges the written rows as Core Data's `mergeChanges(fromRemoteContextSave:into:)` does —
    /// new rows as inserted objects, rows an upsert changed as updated (refreshed) ones.
    @Test("mergesChangesIntoContexts: inserted and upserted objects reach every context", arguments: TestStack.Kind.allCases)
    func mergesIntoEveryContext(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        try Self.seed(stack)
        let view = stack.newContext(name: "view")
        let quake = try view.performAndWait { () -> ManagedObject in
            let quake = try #require(try view.fetch(FetchRequest<ManagedObject>(entityName: "Quake")).first)
            _ = quake.value(forKey: "magnitude")
            return quake
        }
        let log = NotificationLog(view, names: [.managedObjectContextObjectsDidChange])
        let worker = stack.newContext(name: "worker")
        try worker.performAndWait {
            let insert = BatchInsertRequest(entityName: "Quake", objects: [["code": "q1", "magnitude": 9.0], ["code": "q9"]])
            insert.resultType = .count
            insert.mergesChangesIntoContexts = true
            let insertResult = try worker.execute(insert) as? BatchInsertResult
            #expect(insertResult?.result as? Int == 2)
        }
        view.performAndWait { #expect(quake.value(forKey: "magnitude") as? Double == 9.0) }
        let info = log.lastUserInfo[.managedObjectContextObjectsDidChange]
        let updated = info?[ManagedObjectContext.NotificationKey.updatedObjectIDs] as? Set<ManagedObjectID>
        let inserted = info?[ManagedObjectContext.NotificationKey.insertedObjectIDs] as? Set<ManagedObjectID>
        #expect(updated == [quake.objectID])
        #expect(inserted?.count == 1 && inserted?.first?.entity.name == "Quake" && inserted?.first != quake.objectID)
    }

    /// Core Data (WWDC 2020, "Core Data: Sundries and maxims": batch operations post no save
    /// notification; persistent history is how other contexts learn of them): with history
    /// tracking on, a batch insert is one history transaction with the executing context's
    /// author and name — an insert per new row, an update per row an upsert changed.
    @Test("with history tracking: one transaction, inserts and upserts", arguments: TestStack.Kind.keepingHistory)
    func recordsHistory(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind, options: [PersistentStoreOption.persistentHistoryTracking: true])
        try Self.seed(stack)
        let reader = stack.newContext()
        let q1 = try reader.performAndWait { try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Quake")).first).objectID }
        let context = stack.newContext(name: "batch")
        context.transactionAuthor = "importer"
        let ids = try context.performAndWait {
            let insert = BatchInsertRequest(entityName: "Quake", objects: [["code": "q1", "magnitude": 7.0], ["code": "new"]])
            insert.resultType = .objectIDs
            let result = try context.execute(insert) as? BatchInsertResult
            _ = try context.execute(BatchInsertRequest(entityName: "Quake", objects: []))  // no row: no transaction
            return try #require(result?.result as? [ManagedObjectID])
        }
        let transactions = try context.performAndWait {
            let result = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil)) as? PersistentHistoryResult
            return try #require(result?.result as? [PersistentHistoryTransaction])
        }
        #expect(transactions.count == 2)  // the seed's save, then the batch insert
        let last = try #require(transactions.last)
        #expect(last.author == "importer" && last.contextName == "batch")
        let changes = last.changes ?? []
        #expect(changes.count == 2)
        let update = try #require(changes.first { $0.changeType == .update })
        #expect(update.changedObjectID == q1 && ids[0] == q1)
        #expect(update.updatedProperties?.contains { $0.name == "magnitude" } == true)
        let insert = try #require(changes.first { $0.changeType == .insert })
        #expect(insert.changedObjectID == ids[1])
    }

    /// Core Data's `NSIncrementalStore` contract: a context cannot tell which store is behind
    /// it. A store written against the public seam (`DictionaryStore`) gets batch inserts, upserts
    /// included, through the same save path as the in-memory store.
    @Test("a store written against the public seam inserts and upserts too")
    func publicSeamStore() throws {
        PersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: DictionaryStore.storeType)
        let model = Self.model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: DictionaryStore.storeType)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let first = BatchInsertRequest(entityName: "Quake", objects: [["code": "a", "magnitude": 1.0], ["code": "b"]])
            first.resultType = .objectIDs
            let firstIDs = try #require((try context.execute(first) as? BatchInsertResult)?.result as? [ManagedObjectID])
            let second = BatchInsertRequest(entityName: "Quake", objects: [["code": "c"], ["code": "a", "magnitude": 4.0]])
            second.resultType = .objectIDs
            let secondIDs = try #require((try context.execute(second) as? BatchInsertResult)?.result as? [ManagedObjectID])
            #expect(firstIDs.count == 2 && secondIDs.count == 2 && secondIDs[1] == firstIDs[0] && !firstIDs.contains(secondIDs[0]))
            let quakes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Quake"))
            #expect(quakes.count == 3)
            #expect(try context.existingObject(with: firstIDs[0]).value(forKey: "magnitude") as? Double == 4.0)
        }
    }

    /// The SQLite store runs one prepared INSERT per row in one transaction; with a uniqueness
    /// constraint it is an upsert (`ON CONFLICT … DO UPDATE`), with `RETURNING` only when IDs
    /// are asked for.
    @Test("SQLite: one prepared INSERT, an upsert only with constraints, RETURNING only for IDs")
    func sqlShape() throws {
        let stack = try TestStack(model: Self.model())
        let context = stack.newContext()
        let recorder = stack.recordSQL()
        func inserts(_ request: BatchInsertRequest) throws -> Set<String> {
            try Set(recorder.statements { _ = try context.performAndWait { try context.execute(request) } }.filter { $0.hasPrefix("INSERT") })
        }
        let plain = try inserts(BatchInsertRequest(entityName: "Reading", objects: [["value": 1], ["value": 2]]))
        #expect(plain.count == 1 && plain.allSatisfy { !$0.contains("ON CONFLICT") && !$0.contains("RETURNING") })
        let counted = BatchInsertRequest(entityName: "Quake", objects: [["code": "a"], ["code": "b"]])
        counted.resultType = .count
        let upsert = try inserts(counted)
        #expect(upsert.count == 1 && upsert.allSatisfy { $0.contains("ON CONFLICT") && $0.contains("DO UPDATE") && !$0.contains("RETURNING") })
        let identified = BatchInsertRequest(entityName: "Quake", objects: [["code": "a"], ["code": "c"]])
        identified.resultType = .objectIDs
        #expect(try inserts(identified).allSatisfy { $0.contains("RETURNING Z_PK") })
    }
}
