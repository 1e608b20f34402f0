import Dispatch
import Foundation
import Strata
import StrataLocks

// `swift run strata-history-importer` (docs/batch.md, "A background importer and a view that
// follows by history"): what a server or an app does with batch inserts and persistent history.
//
// A background context imports earthquake feeds with `BatchInsertRequest`s — each feed repeats
// some quakes of the one before, which the uniqueness constraint on `code` turns into updates —
// and purges old quakes with a `BatchDeleteRequest`. None of that goes through a context, so no
// did-save notification tells anyone. The view context follows anyway: on every
// `.persistentStoreRemoteChange` it reads the history after the last token it consumed, merges
// each transaction written by someone else, keeps the new token, and purges history every
// reader has consumed. At the end the view's objects must equal a fresh fetch, or the example
// exits 1.

let feeds = 20
let quakesPerFeed = 2_000

let model: ManagedObjectModel = {
    let quake = EntityDescription(name: "Quake")
    let code = AttributeDescription(name: "code", type: .string, isOptional: false, defaultValue: "")
    code.isIndexed = true
    quake.properties = [
        code,
        AttributeDescription(name: "magnitude", type: .double, isOptional: false, defaultValue: 0.0),
        AttributeDescription(name: "place", type: .string),
        AttributeDescription(name: "time", type: .date),
    ]
    quake.uniquenessConstraints = [["code"]]
    return ManagedObjectModel(entities: [quake])
}()

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-history-importer-\(UUID().uuidString)", isDirectory: true)
defer { try? FileManager.default.removeItem(at: folder) }
let description = PersistentStoreDescription(url: folder.appendingPathComponent("Quakes.sqlite"))
description.setOption(true, forKey: PersistentStoreOption.persistentHistoryTracking)
description.setOption(true, forKey: PersistentStoreOption.remoteChangeNotificationPost)
let container = PersistentContainer(name: "Quakes", managedObjectModel: model)
container.persistentStoreDescriptions = [description]
do {
    try container.loadPersistentStores()
} catch {
    print("Could not open the store: \(error)")
    exit(1)
}

// MARK: The view side: follow the store by its history.

let view = container.newBackgroundContext()  // a main-queue viewContext works the same way
view.name = "view"
view.transactionAuthor = "view"
/// The last history token the view consumed, and how many transactions it merged.
let progress = StrataLock<(token: PersistentHistoryToken?, merged: Int)>((nil, 0))
/// The quakes the view shows (it keeps their objects registered: a real view holds its fetched
/// results), so merges have objects to update.
view.retainsRegisteredObjects = true
let shown = StrataLock<[ManagedObjectID]>([])

/// Reads the history after the view's token, merges what others wrote, keeps the new token.
/// Runs on the view's queue.
func followHistory() {
    do {
        let request = PersistentHistoryChangeRequest.fetchHistory(after: progress.withLock { $0.token })
        let result = try view.execute(request) as? PersistentHistoryResult
        let transactions = result?.result as? [PersistentHistoryTransaction] ?? []
        for transaction in transactions where transaction.author != "view" {
            view.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
        }
        guard let last = transactions.last else { return }
        progress.withLock {
            $0.token = last.token
            $0.merged += transactions.count
        }
        // Every reader of this store is this view: history it has consumed can go.
        _ = try view.execute(PersistentHistoryChangeRequest.deleteHistory(before: last.token))
    } catch {
        print("The view could not follow the history: \(error)")
    }
}

let observer = NotificationCenter.default.addObserver(forName: .persistentStoreRemoteChange, object: nil, queue: nil) { _ in
    view.perform { followHistory() }
}
defer { NotificationCenter.default.removeObserver(observer) }

// MARK: The importer side: batch inserts and a batch delete, on a background queue.

let importer = container.newBackgroundContext()
importer.name = "importer"
importer.transactionAuthor = "importer"
let started = ContinuousClock.now
do {
    var inserted = 0
    for feed in 0..<feeds {
        // Each feed overlaps the previous one by a quarter: those quakes are updated.
        inserted += try importer.performAndWait {
            let first = feed * quakesPerFeed * 3 / 4
            var next = first
            let insert = BatchInsertRequest(entityName: "Quake") { (row: NSMutableDictionary) -> Bool in
                guard next < first + quakesPerFeed else { return true }
                row["code"] = "q\(next)"
                row["magnitude"] = Double(next % 90) / 10 + Double(feed) / 100
                row["place"] = "place \(next % 500)"
                row["time"] = Date(timeIntervalSinceReferenceDate: Double(next) * 60)
                next += 1
                return false
            }
            insert.resultType = .count
            return (try importer.execute(insert) as? BatchInsertResult)?.result as? Int ?? 0
        }
        if feed == 0 {
            // The view shows the first feed's strongest and weakest quakes.
            try view.performAndWait {
                let request = FetchRequest<ManagedObject>(entityName: "Quake")
                request.predicate = ObjectPredicate(format: "magnitude >= 8.5 OR magnitude < 0.5")
                let objects = try view.fetch(request)
                shown.withLock { $0 = objects.map(\.objectID) }
            }
        }
    }
    // Old, weak quakes go.
    let purged = try importer.performAndWait {
        let old = FetchRequest<ManagedObject>(entityName: "Quake")
        old.predicate = ObjectPredicate(format: "magnitude < 1 AND time < %@", Date(timeIntervalSinceReferenceDate: 60 * 10_000) as NSDate)
        let purge = BatchDeleteRequest(fetchRequest: old)
        purge.resultType = .resultTypeCount
        return (try importer.execute(purge) as? BatchDeleteResult)?.result as? Int ?? 0
    }
    print("importer: \(feeds) feeds, \(inserted) rows inserted or updated, \(purged) purged, in \(ContinuousClock.now - started)")
} catch {
    print("The import failed: \(error)")
    exit(1)
}

// MARK: Check: the view followed everything.

// Notifications arrive on the store's queue; give the last ones a moment to be merged.
/// What a context says each shown quake's magnitude is (nil: deleted).
func magnitudes(in context: ManagedObjectContext, ids: [ManagedObjectID], registered: Bool) -> [Double?] {
    context.performAndWait {
        ids.map { id in
            let object = registered ? context.object(with: id) : (try? context.existingObject(with: id))
            guard let object, !object.isDeleted else { return nil }
            return object.value(forKey: "magnitude") as? Double
        }
    }
}
let ids = shown.withLock { $0 }
let deadline = Date().addingTimeInterval(10)
var agrees = false
while Date() < deadline && !agrees {
    Thread.sleep(forTimeInterval: 0.1)
    let store = magnitudes(in: container.newBackgroundContext(), ids: ids, registered: false)
    agrees = magnitudes(in: view, ids: ids, registered: true) == store
}
let (token, merged) = progress.withLock { ($0.token, $0.merged) }
print("view: followed \(merged) history transactions (last token \(token.map { "\($0)" } ?? "none")), \(ids.count) quakes shown")
if !agrees || merged == 0 || ids.isEmpty {
    print("The view did not follow the store: FAIL")
    exit(1)
}
print("The view's quakes equal the store's: OK")
