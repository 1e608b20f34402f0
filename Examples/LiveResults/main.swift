import Foundation
import Strata

// `swift run strata-live-results` (docs/live-results.md): a fetched-results controller over a
// view context while a background context imports and saves; the view merges each save
// (`automaticallyMergesChangesFromParent`) and the controller prints what changed, as index
// paths a table (or a client over a socket) can apply. The example keeps such a table from the
// reported changes alone and exits 1 if it ever differs from a fresh fetch.

let model: ManagedObjectModel = {
    let team = EntityDescription(name: "Team")
    team.properties = [
        AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
        AttributeDescription(name: "qualifyingZone", type: .string, isOptional: false, defaultValue: ""),
        AttributeDescription(name: "wins", type: .integer64, isOptional: false, defaultValue: Int64(0)),
    ]
    return ManagedObjectModel(entities: [team])
}()

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-live-results-\(UUID().uuidString)", isDirectory: true)
defer { try? FileManager.default.removeItem(at: folder) }
let container = PersistentContainer(name: "WorldCup", managedObjectModel: model)
container.persistentStoreDescriptions = [PersistentStoreDescription(url: folder.appendingPathComponent("WorldCup.sqlite"))]
do {
    try container.loadPersistentStores()
} catch {
    print("Could not open the store: \(error)")
    exit(1)
}

/// Teams by zone, then most wins, then name: the Core Data notes' World Cup request.
func teamsByZone() -> FetchRequest<ManagedObject> {
    let request = FetchRequest<ManagedObject>(entityName: "Team")
    request.sortDescriptors = [
        ObjectSortDescriptor(key: "qualifyingZone", ascending: true), ObjectSortDescriptor(key: "wins", ascending: false),
        ObjectSortDescriptor(key: "name", ascending: true),
    ]
    return request
}

/// Prints each change and applies it to a table of names, as a table view applies a batch.
final class TablePrinter: FetchedResultsControllerDelegate {
    var table: [(section: String, names: [String])] = []
    private var deletedSections: [Int] = []
    private var insertedSections: [(Int, String)] = []
    private var removals: [IndexPath] = []
    private var insertions: [(IndexPath, String)] = []

    func name(_ object: Any) -> String { (object as? ManagedObject)?.value(forKey: "name") as? String ?? "?" }

    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) {
        deletedSections = []
        insertedSections = []
        removals = []
        insertions = []
    }

    func controller(_ controller: AnyFetchedResultsController, didChange sectionInfo: any FetchedResultsSectionInfo, atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        print("  section \(type == .insert ? "insert" : "delete") \(sectionIndex) '\(sectionInfo.name)'")
        if type == .insert { insertedSections.append((sectionIndex, sectionInfo.name)) } else { deletedSections.append(sectionIndex) }
    }

    func controller(_ controller: AnyFetchedResultsController, didChange anObject: Any, at indexPath: IndexPath?, for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
        func path(_ path: IndexPath?) -> String { path.map { "[\($0.section), \($0.item)]" } ?? "-" }
        switch type {
        case .insert: print("  insert \(name(anObject)) at \(path(newIndexPath))")
        case .delete: print("  delete \(name(anObject)) from \(path(indexPath))")
        case .move: print("  move   \(name(anObject)) \(path(indexPath)) → \(path(newIndexPath))")
        case .update: print("  update \(name(anObject)) at \(path(indexPath))")
        }
        if type == .delete || type == .move, let indexPath { removals.append(indexPath) }
        if type == .insert || type == .move, let newIndexPath { insertions.append((newIndexPath, name(anObject))) }
    }

    func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {
        for path in removals.sorted(by: { ($0.section, $0.item) > ($1.section, $1.item) }) { table[path.section].names.remove(at: path.item) }
        for index in deletedSections.sorted(by: >) { table.remove(at: index) }
        for (index, name) in insertedSections.sorted(by: { $0.0 < $1.0 }) { table.insert((name, []), at: index) }
        for (path, name) in insertions.sorted(by: { ($0.0.section, $0.0.item) < ($1.0.section, $1.0.item) }) {
            table[path.section].names.insert(name, at: path.item)
        }
    }
}

/// The same controller's results as snapshots (section names and object IDs), for a diffing UI.
final class SnapshotPrinter: FetchedResultsControllerDelegate {
    var prefersContentSnapshots: Bool { true }
    func controller(_ controller: AnyFetchedResultsController, didChangeContentWith snapshot: FetchedResultsSnapshot) {
        let counts = snapshot.sectionIdentifiers.map { "\($0): \(snapshot.itemIdentifiers(inSection: $0).count)" }
        print("  snapshot: \(counts.joined(separator: ", "))")
    }
}

// A private-queue view context: this program has no main run loop to serve `viewContext`'s
// queue (an app with one uses `container.viewContext` the same way).
let view = container.newBackgroundContext()
view.name = "view"
view.automaticallyMergesChangesFromParent = true
let printer = TablePrinter()
let snapshots = SnapshotPrinter()
let (controller, snapshotController) = view.performAndWait {
    (
        FetchedResultsController(fetchRequest: teamsByZone(), managedObjectContext: view, sectionNameKeyPath: "qualifyingZone", cacheName: nil),
        FetchedResultsController(fetchRequest: teamsByZone(), managedObjectContext: view, sectionNameKeyPath: "qualifyingZone", cacheName: nil)
    )
}
do {
    try view.performAndWait {
        try controller.performFetch()
        try snapshotController.performFetch()
        controller.delegate = printer
        snapshotController.delegate = snapshots
    }
} catch {
    print("performFetch failed: \(error)")
    exit(1)
}

// The background importer: each round inserts teams, records results (wins), moves a team to
// another zone and retires one; then saves. The view merges the save on its own queue.
let background = container.newBackgroundContext()
let zones = ["Africa", "Asia", "Europe", "North America", "South America"]
var failures = 0
for round in 1...4 {
    print("Round \(round):")
    do {
        try background.performAndWait {
            guard let teamEntity = model.entitiesByName["Team"] else { return }
            for index in 0..<3 {
                let team = ManagedObject(entity: teamEntity, insertInto: background)
                team.setValue("Team \(round)-\(index)", forKey: "name")
                team.setValue(zones[(round + index) % zones.count], forKey: "qualifyingZone")
                team.setValue(Int64(index), forKey: "wins")
            }
            let teams = try background.fetch(teamsByZone())
            for (offset, team) in teams.enumerated() where offset % 3 == round % 3 {
                team.setValue((team.value(forKey: "wins") as? Int64 ?? 0) + 2, forKey: "wins")
            }
            if round > 1, let mover = teams.first { mover.setValue(zones[round % zones.count], forKey: "qualifyingZone") }
            if round > 2, let retired = teams.last { background.delete(retired) }
            try background.save()
        }
    } catch {
        print("The import failed: \(error)")
        exit(1)
    }
    // Wait for the merge queued on the view's queue, then compare the table with a fetch.
    view.performAndWait {
        let fresh = (try? view.fetch(teamsByZone())) ?? []
        var expected: [(String, [String])] = []
        for team in fresh {
            let zone = team.value(forKey: "qualifyingZone") as? String ?? ""
            let name = team.value(forKey: "name") as? String ?? ""
            if expected.last?.0 == zone { expected[expected.count - 1].1.append(name) } else { expected.append((zone, [name])) }
        }
        let same = printer.table.count == expected.count && zip(printer.table, expected).allSatisfy { $0.section == $1.0 && $0.names == $1.1 }
        print("  table: \(printer.table.map { "\($0.section) (\($0.names.count))" }.joined(separator: ", ")) — \(same ? "matches a fresh fetch" : "DIFFERS from a fresh fetch")")
        if !same { failures += 1 }
    }
}
exit(failures == 0 ? 0 : 1)
