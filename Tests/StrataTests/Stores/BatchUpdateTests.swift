import Foundation
import Strata
import StrataTestSupport
import Testing

/// `BatchUpdateRequest` through `execute(_:)` (issue #14, items 1 and 2), on both stores. Core
/// Data's facts come from Apple's NSBatchUpdateRequest and NSBatchUpdateResult documentation:
/// the update runs in the store without loading objects, skips validation, leaves contexts as
/// they are (their objects are merged with `mergeChanges(fromRemoteContextSave:into:)`), and
/// returns a status, a count or the updated objects' IDs.
@Suite("Batch update requests")
struct BatchUpdateTests {
    /// City ← Venue (to-one `city`), Cafe a sub-entity of Venue.
    static func model() -> ManagedObjectModel {
        let city = EntityDescription(name: "City")
        let venue = EntityDescription(name: "Venue")
        let cafe = EntityDescription(name: "Cafe")
        venue.subentities = [cafe]
        let visits = AttributeDescription(name: "visits", type: .integer16, isOptional: false, defaultValue: Int16(0))
        visits.maxValue = Int16(1000)  // a validation rule the batch update does not run
        city.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "venues", destination: venue, inverse: "city", toMany: true),
        ]
        venue.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            visits,
            AttributeDescription(name: "favorite", type: .boolean, isOptional: false, defaultValue: false),
            AttributeDescription(name: "rating", type: .double, isOptional: false, defaultValue: 0.0),
            AttributeDescription(name: "touched", type: .date),
            AttributeDescription(name: "label", type: .string),
            RelationshipDescription(name: "city", destination: city, inverse: "venues"),
        ]
        cafe.properties = [AttributeDescription(name: "seats", type: .integer32, isOptional: false, defaultValue: Int32(0))]
        return ManagedObjectModel(entities: [city, venue, cafe])
    }

    /// Paris with venues v0…v5 (visits 0, 10, …, 50) and a cafe (visits 60); Rome with r0.
    static func seed(_ stack: TestStack) throws {
        let context = stack.newContext()
        try context.performAndWait {
            let model = stack.model
            func insert(_ entity: String) -> ManagedObject { ManagedObject(entity: model.entitiesByName[entity]!, insertInto: context) }
            let paris = insert("City")
            paris.setValue("Paris", forKey: "name")
            let rome = insert("City")
            rome.setValue("Rome", forKey: "name")
            for index in 0..<6 {
                let venue = insert("Venue")
                venue.setValue("v\(index)", forKey: "name")
                venue.setValue(Int16(index * 10), forKey: "visits")
                venue.setValue(paris, forKey: "city")
            }
            let cafe = insert("Cafe")
            cafe.setValue("cafe", forKey: "name")
            cafe.setValue(Int16(60), forKey: "visits")
            cafe.setValue(paris, forKey: "city")
            let roman = insert("Venue")
            roman.setValue("r0", forKey: "name")
            roman.setValue(Int16(5), forKey: "visits")
            roman.setValue(rome, forKey: "city")
            try context.save()
        }
    }

    /// name → (visits, favorite, rating, label) as a fresh context reads them from the store.
    static func stored(_ stack: TestStack) throws -> [String: (Int16, Bool, Double, String?)] {
        let context = stack.newContext()
        return try context.performAndWait {
            var result: [String: (Int16, Bool, Double, String?)] = [:]
            for venue in try context.fetch(FetchRequest<ManagedObject>(entityName: "Venue")) {
                let name = venue.value(forKey: "name") as? String ?? "?"
                result[name] = (
                    venue.value(forKey: "visits") as? Int16 ?? -1, venue.value(forKey: "favorite") as? Bool ?? false,
                    venue.value(forKey: "rating") as? Double ?? -1, venue.value(forKey: "label") as? String
                )
            }
            return result
        }
    }

    @Test("constants and expressions on the matching rows; status, count and IDs", arguments: TestStack.Kind.allCases)
    func updatesMatchingRows(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        try Self.seed(stack)
        let context = stack.newContext()
        try context.performAndWait {
            let update = BatchUpdateRequest(entityName: "Venue")
            update.predicate = ObjectPredicate(format: "visits >= %d", 30)
            update.propertiesToUpdate = ["favorite": true, "visits": ObjectExpression(format: "visits + 1"), "rating": ObjectExpression(format: "visits * 2")]
            update.resultType = .updatedObjectIDsResultType
            let result = try #require(try context.execute(update) as? BatchUpdateResult)
            let ids = try #require(result.result as? [ManagedObjectID])
            #expect(ids.count == 4)  // v3, v4, v5 and the cafe (a sub-entity)
            #expect(Set(ids.map(\.entity.name)) == ["Venue", "Cafe"])

            let count = BatchUpdateRequest(entityName: "Venue")
            count.propertiesToUpdate = ["label": "seen"]
            count.resultType = .updatedObjectsCountResultType
            let counted = try context.execute(count) as? BatchUpdateResult
            #expect(counted?.result as? Int == 8)

            let status = BatchUpdateRequest(entity: try #require(stack.model.entitiesByName["Venue"]))
            status.predicate = ObjectPredicate(format: "name == 'nothing'")
            status.propertiesToUpdate = ["label": "never"]
            let statusResult = try context.execute(status) as? BatchUpdateResult
            #expect(statusResult?.result as? Bool == true)
        }
        let rows = try Self.stored(stack)
        #expect(rows["v2"]?.0 == 20 && rows["v2"]?.1 == false && rows["v2"]?.2 == 0)
        #expect(rows["v3"]?.0 == 31 && rows["v3"]?.1 == true && rows["v3"]?.2 == 60)  // rating from the old visits
        #expect(rows["cafe"]?.0 == 61 && rows["cafe"]?.1 == true)
        #expect(rows.values.allSatisfy { $0.3 == "seen" })
    }

    @Test("includesSubentities, to-one key paths, now() and another attribute", arguments: TestStack.Kind.allCases)
    func keyPathsAndSubentities(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        try Self.seed(stack)
        let context = stack.newContext()
        let before = Date()
        try context.performAndWait {
            let update = BatchUpdateRequest(entityName: "Venue")
            update.includesSubentities = false
            update.predicate = ObjectPredicate(format: "city.name == 'Paris'")
            update.propertiesToUpdate = ["label": ObjectExpression(format: "city.name"), "touched": ObjectExpression(format: "now()"), "rating": ObjectExpression(format: "visits")]
            update.resultType = .updatedObjectsCountResultType
            let result = try context.execute(update) as? BatchUpdateResult
            #expect(result?.result as? Int == 6)
        }
        let rows = try Self.stored(stack)
        #expect(rows["v4"]?.3 == "Paris" && rows["v4"]?.2 == 40)
        #expect(rows["cafe"]?.3 == nil)  // a sub-entity's row, excluded
        #expect(rows["r0"]?.3 == nil)  // another city
        let reader = stack.newContext()
        try reader.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Venue")
            request.predicate = ObjectPredicate(format: "name == 'v1'")
            let touched = try #require(try reader.fetch(request).first?.value(forKey: "touched") as? Date)
            #expect(touched >= before.addingTimeInterval(-1) && touched <= Date().addingTimeInterval(1))
        }
    }

    /// Core Data: a batch update bumps each row's optimistic-locking version, so a context with
    /// an edited copy gets a merge conflict at its next save (NSBatchUpdateRequest: the update
    /// bypasses the context; NSMergeConflict on the version mismatch) and its merge policy
    /// resolves it as any other conflict.
    @Test("a stale edited copy conflicts at save; merge policies resolve it", arguments: TestStack.Kind.allCases)
    func versionsBumped(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        try Self.seed(stack)
        for policy in [MergePolicy.error, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump] {
            let editor = stack.newContext(name: "editor")
            editor.mergePolicy = policy
            let venue = try editor.performAndWait {
                let request = FetchRequest<ManagedObject>(entityName: "Venue")
                request.predicate = ObjectPredicate(format: "name == 'v1'")
                let venue = try #require(try editor.fetch(request).first)
                venue.setValue("edited", forKey: "label")
                venue.setValue(Int16(11), forKey: "visits")
                return venue
            }
            let updater = stack.newContext()
            try updater.performAndWait {
                let update = BatchUpdateRequest(entityName: "Venue")
                update.predicate = ObjectPredicate(format: "name == 'v1'")
                update.propertiesToUpdate = ["visits": Int16(500), "favorite": true]
                _ = try updater.execute(update)
            }
            let outcome = editor.performAndWait { () -> (any Error)? in
                do {
                    try editor.save()
                    return nil
                } catch {
                    return error
                }
            }
            let row = try #require(try Self.stored(stack)["v1"])
            switch policy.kind {
            case .error:
                #expect((outcome as? StrataError)?.code == StrataError.Code.managedObjectMerge)
                #expect(row.0 == 500 && row.3 == nil)
                editor.performAndWait { editor.rollback() }
            case .mergeByPropertyObjectTrump:
                #expect(outcome == nil)
                #expect(row.0 == 11 && row.1 == true && row.3 == "edited")  // mine where both changed
            default:
                #expect(outcome == nil)
                #expect(row.0 == 500 && row.1 == true && row.3 == "edited")  // the store's where both changed
            }
            _ = venue
            // Back to the seeded values for the next policy.
            try updater.performAndWait {
                let reset = BatchUpdateRequest(entityName: "Venue")
                reset.predicate = ObjectPredicate(format: "name == 'v1'")
                reset.propertiesToUpdate = ["visits": Int16(10), "favorite": false, "label": ObjectExpression(forConstantValue: nil)]
                _ = try updater.execute(reset)
            }
        }
    }

    /// Core Data: contexts do not see a batch update until its IDs are merged
    /// (`mergeChanges(fromRemoteContextSave:into:)`), which refreshes the registered objects;
    /// objects faulted in afterwards read the new values (the coordinator's row cache never
    /// serves the old row).
    @Test("merging the IDs shows the new values; no stale cached row", arguments: TestStack.Kind.allCases)
    func mergeAndCache(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        try Self.seed(stack)
        let view = stack.newContext(name: "view")
        let other = stack.newContext(name: "other")
        let (venue, id) = try view.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Venue")
            request.predicate = ObjectPredicate(format: "name == 'v2'")
            let venue = try #require(try view.fetch(request).first)
            _ = venue.value(forKey: "visits")
            return (venue, venue.objectID)
        }
        // The other context holds the row too (the row cache keeps it while an object uses it).
        let held = other.performAndWait { () -> ManagedObject in
            let object = other.object(with: id)
            _ = object.value(forKey: "visits")
            return object
        }
        let ids = try view.performAndWait {
            let update = BatchUpdateRequest(entityName: "Venue")
            update.predicate = ObjectPredicate(format: "name == 'v2'")
            update.propertiesToUpdate = ["visits": Int16(222)]
            update.resultType = .updatedObjectIDsResultType
            let ids = try #require(try view.execute(update) as? BatchUpdateResult).result as? [ManagedObjectID] ?? []
            #expect(venue.value(forKey: "visits") as? Int16 == 20)  // not merged yet
            return ids
        }
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: [ManagedObjectContext.NotificationKey.updatedObjectIDs: ids], into: [view])
        view.performAndWait { #expect(venue.value(forKey: "visits") as? Int16 == 222) }
        // A third context faulting the row in reads the new value, not a cached old one.
        let third = stack.newContext()
        third.performAndWait { #expect(third.object(with: id).value(forKey: "visits") as? Int16 == 222) }
        withExtendedLifetime(held) {}
    }

    /// Core Data: a batch update does not run validation (NSBatchUpdateRequest: "does not
    /// validate"); Strata still refuses values that cannot be stored — wrong types, unknown or
    /// relationship keys, nil for a required attribute, integers out of range — before writing.
    @Test("validation is skipped; unstorable values are errors and nothing is written", arguments: TestStack.Kind.allCases)
    func errorsWriteNothing(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        try Self.seed(stack)
        let context = stack.newContext()
        let before = try Self.stored(stack)
        func attempt(_ properties: [AnyHashable: Any]) -> StrataError? {
            context.performAndWait {
                let update = BatchUpdateRequest(entityName: "Venue")
                update.propertiesToUpdate = properties
                do {
                    _ = try context.execute(update)
                    return nil
                } catch {
                    return error as? StrataError
                }
            }
        }
        #expect(attempt(["nope": 1])?.key == "nope")
        #expect(attempt(["city": 1])?.key == "city")
        #expect(attempt(["visits": "many"])?.key == "visits")
        #expect(attempt(["name": ObjectExpression(forConstantValue: nil)])?.key == "name")
        #expect(attempt(["visits": 70_000])?.code == StrataError.Code.validationNumberTooLarge)
        #expect(attempt(["name": ObjectExpression(format: "visits + 1")])?.key == "name")  // integers into a string
        #expect(attempt(["visits": ObjectExpression(format: "visits +")]) != nil)  // malformed
        // Computed values out of range: found while updating, rolled back.
        #expect(attempt(["visits": ObjectExpression(format: "visits * 1000")])?.key == "visits")
        #expect(attempt([:]) != nil)
        let after = try Self.stored(stack)
        #expect(after.mapValues { "\($0)" } == before.mapValues { "\($0)" })
        // Validation is not run: 5000 exceeds the attribute's maxValue of 1000 but is stored.
        #expect(attempt(["visits": Int16(5000)]) == nil)
        #expect(try Self.stored(stack)["v0"]?.0 == 5000)
    }

    @Test("execute(_:) runs a fetch request too")
    func executeFetch() throws {
        let stack = try TestStack(model: Self.model())
        try Self.seed(stack)
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "City")
            request.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
            let result = try #require(try context.execute(request) as? FetchResult)
            #expect((result.result as? [ManagedObject])?.compactMap { $0.value(forKey: "name") as? String } == ["Paris", "Rome"])
            #expect(request.requestType == .fetchRequestType)
        }
    }

    /// Strata's option: with `mergesChangesIntoContexts`, every context of the coordinator (a
    /// child included) merges the update by itself, as if each had been passed to Core Data's
    /// `mergeChanges(fromRemoteContextSave:into:)`.
    @Test("mergesChangesIntoContexts merges the update into every context of the coordinator", arguments: TestStack.Kind.allCases)
    func mergesIntoEveryContext(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        try Self.seed(stack)
        let view = stack.newContext(name: "view")
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = view
        let request = FetchRequest<ManagedObject>(entityName: "Venue")
        request.predicate = ObjectPredicate(format: "name == 'v3'")
        let inView = try view.performAndWait { () -> ManagedObject in
            let venue = try #require(try view.fetch(request).first)
            _ = venue.value(forKey: "visits")
            return venue
        }
        let inChild = try child.performAndWait { () -> ManagedObject in
            let venue = try #require(try child.fetch(request).first)
            _ = venue.value(forKey: "visits")
            return venue
        }
        let log = NotificationLog(view, names: [.managedObjectContextObjectsDidChange])
        let worker = stack.newContext(name: "worker")
        try worker.performAndWait {
            let update = BatchUpdateRequest(entityName: "Venue")
            update.predicate = ObjectPredicate(format: "name == 'v3'")
            update.propertiesToUpdate = ["visits": Int16(333)]
            update.resultType = .updatedObjectsCountResultType
            update.mergesChangesIntoContexts = true
            let result = try worker.execute(update) as? BatchUpdateResult
            #expect(result?.result as? Int == 1)
        }
        // The merges were queued on each context before execute returned: these blocks run after them.
        view.performAndWait { #expect(inView.value(forKey: "visits") as? Int16 == 333) }
        child.performAndWait { #expect(inChild.value(forKey: "visits") as? Int16 == 333) }
        let updated = log.lastUserInfo[.managedObjectContextObjectsDidChange]?[ManagedObjectContext.NotificationKey.updatedObjectIDs] as? Set<ManagedObjectID>
        #expect(updated == [inView.objectID])
    }

    /// Core Data evaluates an NSExpression's arithmetic in IEEE doubles (NSExpression
    /// "add:to:", "multiply:by:"), NaN and infinities included. On SQLite a double column plus a
    /// finite constant runs as SQLite's own arithmetic while the column holds a real; a stored
    /// NaN (and NULL) still goes through Strata's function, and arithmetic that could make a NaN
    /// of a real (times zero) keeps the function.
    @Test("double arithmetic with a constant: SQLite's own for reals, NaN and infinities kept", arguments: TestStack.Kind.allCases)
    func nativeDoubleArithmetic(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        try Self.seed(stack)
        let context = stack.newContext()
        try context.performAndWait {
            for (name, value) in [("v1", Double.infinity), ("v4", Double.nan)] {
                let set = BatchUpdateRequest(entityName: "Venue")
                set.predicate = ObjectPredicate(format: "name == %@", name)
                set.propertiesToUpdate = ["rating": value]
                _ = try context.execute(set)
            }
        }
        let recorder = stack.recordSQL()
        let statements = try context.performAndWait {
            try recorder.statements(during: {
                let update = BatchUpdateRequest(entityName: "Venue")
                update.propertiesToUpdate = ["rating": ObjectExpression(format: "rating + 0.5")]
                _ = try context.execute(update)
                let risky = BatchUpdateRequest(entityName: "Venue")
                risky.predicate = ObjectPredicate(format: "name == 'v2'")
                risky.propertiesToUpdate = ["rating": ObjectExpression(format: "rating * 0")]
                _ = try context.execute(risky)
            })
        }
        if kind == .sqlite {
            let updates = statements.filter { $0.hasPrefix("UPDATE") }
            #expect(updates.count == 2)
            #expect(updates.first.map { $0.contains("typeof(") } == true)  // rating + 0.5: SQLite's own for reals
            #expect(updates.last.map { $0.contains("strata_fn") && !$0.contains("typeof(") } == true)  // rating * 0
        }
        let rows = try Self.stored(stack)
        #expect(rows["v1"]?.2 == Double.infinity)
        #expect(rows["v4"]?.2.isNaN == true)
        #expect(rows["v3"]?.2 == 0.5)
        #expect(rows["v2"]?.2 == 0)
    }
}
