import Foundation
import Strata
import StrataTestSupport

/// One engine's 2,000 items as managed objects, for checking `evaluate(with:)` against what a
/// fetch selects: the fetched objects of a store (faults at first, realized as they are
/// evaluated, and turned back into faults on demand) or the unsaved objects of the pending
/// context. Items are indexed by `idx` (their primary key is `idx + 1` in both stores). Use
/// from one test at a time: it drives its context with `performAndWait`.
final class FixtureObjects: @unchecked Sendable {
    // @unchecked Sendable: the objects are only touched inside `context.performAndWait`.
    let name: String
    let context: ManagedObjectContext
    /// Whether the objects are stored ones, which `refresh(_:mergeChanges: false)` turns into faults.
    let stored: Bool
    private let objects: [ManagedObject]

    /// The items of `stack`'s store, fetched as faults into a new context.
    init(name: String, stack: TestStack) throws {
        self.name = name
        context = stack.newContext(name: "evaluate(with:) " + name)
        stored = true
        let context = self.context
        objects = try context.performAndWait {
            let request = FetchRequest<ManagedObjectID>(entityName: "Item")
            request.resultType = .managedObjectIDResultType
            var byIndex: [ManagedObject?] = Array(repeating: nil, count: DifferentialFixture.itemCount)
            for id in try context.fetch(request) {
                let index = Int(DifferentialEngines.primaryKey(id)) - 1
                guard byIndex.indices.contains(index) else { throw StrataError(code: StrataError.Code.coreData, message: "unexpected item key \(id)") }
                byIndex[index] = context.object(with: id)
            }
            return try byIndex.map { try $0 ?? { throw StrataError(code: StrataError.Code.coreData, message: "missing item") }() }
        }
    }

    /// The unsaved items of `context` (the pending engine).
    init(name: String, unsavedIn context: ManagedObjectContext) throws {
        self.name = name
        self.context = context
        stored = false
        objects = try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Item")
            var byIndex: [ManagedObject?] = Array(repeating: nil, count: DifferentialFixture.itemCount)
            for object in try context.fetch(request) {
                guard let idx = object.value(forKey: "idx") as? Int64, byIndex.indices.contains(Int(idx)) else { continue }
                byIndex[Int(idx)] = object
            }
            return try byIndex.map { try $0 ?? { throw StrataError(code: StrataError.Code.coreData, message: "missing item") }() }
        }
    }

    /// What `evaluate(throwingWith:)` of `predicate` says for the items at `indexes`: the primary
    /// keys of those it is true for (ascending), or a failure when it threw for any. The items in
    /// `faulting` are turned back into faults first (stored objects only), so both faults and
    /// realized objects are evaluated.
    func evaluate(_ predicate: ObjectPredicate, indexes: [Int], faulting: Set<Int> = []) -> EngineAnswer {
        let objects = self.objects
        return context.performAndWait {
            if stored {
                for index in faulting { context.refresh(objects[index], mergeChanges: false) }
            }
            var matched: [Int64] = []
            var errors: [String] = []
            for index in indexes {
                do {
                    if try predicate.evaluate(throwingWith: objects[index]) { matched.append(Int64(index) + 1) }
                } catch {
                    errors.append("item \(index): \(error)")
                }
            }
            if !errors.isEmpty {
                return .failed("\(errors.count) of \(indexes.count) threw, first: \(errors[0])")
            }
            return .rows(matched.sorted())
        }
    }

    /// Whether `evaluate(with:)` (the non-throwing form) is false for every item at `indexes`.
    func allFalse(_ predicate: ObjectPredicate, indexes: [Int]) -> Bool {
        let objects = self.objects
        return context.performAndWait { indexes.allSatisfy { !predicate.evaluate(with: objects[$0]) } }
    }
}

extension EngineAnswer {
    /// The answer restricted to the primary keys `keys` (rows only).
    func restricted(to keys: Set<Int64>) -> EngineAnswer {
        guard case .rows(let rows) = self else { return self }
        return .rows(rows.filter { keys.contains($0) }.sorted())
    }
}
