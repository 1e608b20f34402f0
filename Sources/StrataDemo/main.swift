import Dispatch
import Foundation
import Strata

// `make run`: a real multi-context workload on an embedded SQLite store in a temp folder.
// A background context imports 100,000 people in batches of 5,000 (one save each) while the
// view context, on the main thread, keeps fetching with a predicate and a sort.

let total = 100_000
let batchSize = 5_000

func milliseconds(since start: ContinuousClock.Instant) -> String {
    let elapsed = ContinuousClock.now - start
    let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    return String(format: "%.1f ms", ms)
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-demo-\(UUID().uuidString)", isDirectory: true)
let storeURL = folder.appendingPathComponent("Demo.sqlite")
defer { try? FileManager.default.removeItem(at: folder) }

let container = PersistentContainer(name: "Demo", managedObjectModel: DemoModel.make())
container.persistentStoreDescriptions = [PersistentStoreDescription(url: storeURL)]
do {
    try container.loadPersistentStores()
} catch {
    print("Could not open the store: \(error)")
    exit(1)
}
print("Strata demo — store: \(storeURL.path)")

// The importer runs on the background context's own queue.
let importer = container.newBackgroundContext()
importer.name = "importer"
let importDone = DispatchSemaphore(value: 0)
let importStart = ContinuousClock.now
let saveTimes = LockedBox<[Double]>([])
let importError = LockedBox<(any Error)?>(nil)

importer.perform {
    do {
        var departments: [Department] = []
        for index in 0..<10 {
            let department = Department(context: importer)
            department.name = "Department \(index)"
            department.budget = Decimal(1_000_000) + Decimal(index) + Decimal(sign: .plus, exponent: -1, significand: 5)
            departments.append(department)
        }
        var random = SystemRandomNumberGenerator()
        for batch in 0..<(total / batchSize) {
            for offset in 0..<batchSize {
                let number = batch * batchSize + offset
                let person = Person(context: importer)
                person.name = "Person \(number)"
                person.age = Int16(18 + number % 60)
                person.score = Double(Int.random(in: 0..<10_000, using: &random)) / 100
                person.email = number % 7 == 0 ? nil : "person\(number)@example.org"
                person.joined = Date(timeIntervalSinceReferenceDate: Double(number) * 60)
                person.setValue(departments[number % departments.count], forKey: "department")
            }
            let start = ContinuousClock.now
            try importer.save()
            let elapsed = ContinuousClock.now - start
            saveTimes.update { $0.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000) }
            importer.reset()
            departments = try importer.fetch(FetchRequest<Department>(entityName: "Department"))
                .sorted { $0.name < $1.name }
        }
    } catch {
        importError.update { $0 = error }
    }
    importDone.signal()
}

// Meanwhile the view context (main queue; we are on the main thread) fetches in a loop.
let view = container.viewContext
let request = FetchRequest<Person>(entityName: "Person")
request.predicate = ObjectPredicate(format: "age >= %@ AND name BEGINSWITH %@", 40, "Person 1")
request.sortDescriptors = [ObjectSortDescriptor(key: "score", ascending: false), ObjectSortDescriptor(key: "name", ascending: true)]
request.fetchLimit = 5
var fetches = 0
var observedCounts: [Int] = []
var lastTop: [String] = []
var fetchMilliseconds: [Double] = []
while importDone.wait(timeout: .now()) == .timedOut {
    view.performAndWait {
        do {
            let start = ContinuousClock.now
            let total = try view.count(for: FetchRequest<Person>(entityName: "Person"))
            let top = try view.fetch(request)
            let elapsed = ContinuousClock.now - start
            fetchMilliseconds.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
            fetches += 1
            if observedCounts.last != total { observedCounts.append(total) }
            lastTop = top.map { "\($0.name) (age \($0.age), score \($0.score))" }
            view.reset()
        } catch {
            print("view context fetch failed: \(error)")
        }
    }
    Thread.sleep(forTimeInterval: 0.005)
}
let importTime = milliseconds(since: importStart)

if let error = importError.value {
    print("Import failed: \(error)")
    exit(1)
}

// Final state, read through the view context.
let summary: (Int, Int, [(String, Int)], [String]) = view.performAndWait {
    do {
        let people = try view.count(for: FetchRequest<Person>(entityName: "Person"))
        let departments = try view.fetch(FetchRequest<Department>(entityName: "Department"))
        var perDepartment: [(String, Int)] = []
        for department in departments.sorted(by: { $0.name < $1.name }) {
            let count = try view.count(
                for: {
                    let r = FetchRequest<Person>(entityName: "Person")
                    r.predicate = ObjectPredicate(format: "department == %@", department)
                    return r
                }())
            perDepartment.append((department.name, count))
        }
        let noEmail = FetchRequest<Person>(entityName: "Person")
        noEmail.predicate = ObjectPredicate(format: "email == nil")
        let withoutEmail = try view.count(for: noEmail)
        let top = try view.fetch(request).map { "\($0.name) (age \($0.age), score \($0.score))" }
        return (people, withoutEmail, perDepartment, top)
    } catch {
        print("final fetch failed: \(error)")
        return (0, 0, [], [])
    }
}

// Parent and child: an editor context (a child of the view context) renames a department and
// saves, which pushes the change into the view context; the view context's save writes it to
// the store, and the importer, which merges automatically, sees the new name. Run with
// STRATA_TRACE=trace.json to see the arrows between the three queues (docs/concurrency.md).
importer.automaticallyMergesChangesFromParent = true
let editor = ManagedObjectContext(concurrencyType: .privateQueue)
editor.parent = view
editor.name = "editor"
let renamed: String = {
    do {
        try editor.performAndWait {
            let request = FetchRequest<Department>(entityName: "Department")
            request.predicate = ObjectPredicate(format: "name == %@", "Department 0")
            guard let department = try editor.fetch(request).first else { return }
            department.name = "Department 0 (renamed)"
            try editor.save()
        }
        try view.performAndWait { try view.save() }
        // The merge was queued on the importer's queue by the view context's save: a block
        // queued after it sees the merged name.
        return try importer.performAndWait {
            let request = FetchRequest<Department>(entityName: "Department")
            request.predicate = ObjectPredicate(format: "name BEGINSWITH %@", "Department 0")
            return try importer.fetch(request).first?.name ?? "(none)"
        }
    } catch {
        return "failed: \(error)"
    }
}()

let saves = saveTimes.value
print("")
print("Imported \(summary.0) people in \(saves.count) saves of \(batchSize) (background context) in \(importTime)")
if !saves.isEmpty {
    let sorted = saves.sorted()
    print(String(format: "  save time per batch: median %.1f ms, max %.1f ms", sorted[sorted.count / 2], sorted.last ?? 0))
}
print("View context ran \(fetches) count+fetch rounds while the import was running")
if !fetchMilliseconds.isEmpty {
    let sorted = fetchMilliseconds.sorted()
    print(String(format: "  round time: median %.1f ms, max %.1f ms", sorted[sorted.count / 2], sorted.last ?? 0))
}
print("  counts it saw grow: \(observedCounts.prefix(8).map(String.init).joined(separator: " → "))\(observedCounts.count > 8 ? " → … → \(observedCounts.last ?? 0)" : "")")
print("People without an email: \(summary.1)")
print("People per department:")
for (name, count) in summary.2 { print("  \(name): \(count)") }
print("Top 5 of 'age >= 40 AND name BEGINSWITH \"Person 1\"' by score:")
for line in summary.3 { print("  \(line)") }
print("Renamed in a child of the view context, saved through it, seen by the importer: \(renamed)")
print("Removed \(folder.path)")
