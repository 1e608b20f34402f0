import Foundation
import Strata
import StrataTestSupport
import Testing

/// The World Cup model of the Core Data notes (`../shared/seeds`): teams with a qualifying
/// zone, wins and a name, and zones as objects (for section key paths through a to-one).
enum WorldCup {
    static let zones = ["Africa", "Asia", "Europe", "North America", "Oceania", "South America"]

    static func model() -> ManagedObjectModel {
        let zone = EntityDescription(name: "Zone")
        let team = EntityDescription(name: "Team")
        let teams = RelationshipDescription(name: "teams", destination: team, inverse: "zone", toMany: true, deleteRule: .nullify)
        let zoneLink = RelationshipDescription(name: "zone", destination: zone, inverse: "teams", toMany: false, deleteRule: .nullify)
        zone.properties = [AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""), teams]
        team.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "qualifyingZone", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "wins", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            zoneLink,
        ]
        return ManagedObjectModel(entities: [zone, team])
    }

    @discardableResult
    static func insertTeam(_ context: ManagedObjectContext, name: String, zone: String, wins: Int64, zoneObject: ManagedObject? = nil) -> ManagedObject {
        let team = ManagedObject(entity: context.persistentStoreCoordinator!.managedObjectModel.entitiesByName["Team"]!, insertInto: context)
        team.setValue(name, forKey: "name")
        team.setValue(zone, forKey: "qualifyingZone")
        team.setValue(wins, forKey: "wins")
        if let zoneObject { team.setValue(zoneObject, forKey: "zone") }
        return team
    }

    static func insertZone(_ context: ManagedObjectContext, name: String) -> ManagedObject {
        let zone = ManagedObject(entity: context.persistentStoreCoordinator!.managedObjectModel.entitiesByName["Zone"]!, insertInto: context)
        zone.setValue(name, forKey: "name")
        return zone
    }

    /// Teams sectioned by qualifying zone, sorted by zone, wins (most first) and name — the
    /// notes' request.
    static func teamsByZone() -> FetchRequest<ManagedObject> {
        let request = FetchRequest<ManagedObject>(entityName: "Team")
        request.sortDescriptors = [
            ObjectSortDescriptor(key: "qualifyingZone", ascending: true), ObjectSortDescriptor(key: "wins", ascending: false),
            ObjectSortDescriptor(key: "name", ascending: true),
        ]
        return request
    }

    /// Teams sectioned by their zone object's name (a to-one key path).
    static func teamsByZoneObject() -> FetchRequest<ManagedObject> {
        let request = FetchRequest<ManagedObject>(entityName: "Team")
        request.predicate = ObjectPredicate(format: "zone != nil")
        request.sortDescriptors = [
            ObjectSortDescriptor(key: "zone.name", ascending: true), ObjectSortDescriptor(key: "wins", ascending: false),
            ObjectSortDescriptor(key: "name", ascending: true),
        ]
        return request
    }
}

/// Sections as a table holds them: names and object identities.
struct TableState: Equatable, CustomStringConvertible {
    var sections: [(name: String, items: [ObjectIdentifier])]

    init(sections: [(name: String, items: [ObjectIdentifier])]) { self.sections = sections }

    init(_ controller: AnyFetchedResultsController) {
        sections = (controller.sections ?? []).map { section in
            (section.name, (section.objects ?? []).map { ObjectIdentifier($0 as AnyObject) })
        }
    }

    static func == (lhs: TableState, rhs: TableState) -> Bool {
        lhs.sections.count == rhs.sections.count && zip(lhs.sections, rhs.sections).allSatisfy { $0.name == $1.name && $0.items == $1.items }
    }

    var description: String { sections.map { "\($0.name)(\($0.items.count))" }.joined(separator: " ") }
}

/// A delegate that keeps a table the way UIKit applies a batch of updates — deletes at old index
/// paths (descending), then section deletes, section inserts, and inserts at new index paths
/// (ascending) — and checks each change against the table it applies to.
final class TableRecorder: FetchedResultsControllerDelegate {
    struct ObjectChange {
        let object: ObjectIdentifier
        let type: FetchedResultsChangeType
        let old: IndexPath?
        let new: IndexPath?
    }

    private(set) var table: TableState
    private var sectionDeletes: [Int] = []
    private var sectionInserts: [(index: Int, name: String)] = []
    private var changes: [ObjectChange] = []
    private(set) var events = 0
    private(set) var counts: [FetchedResultsChangeType: Int] = [:]
    private(set) var problems: [String] = []
    private var inEvent = false

    init(_ controller: AnyFetchedResultsController) {
        table = TableState(controller)
    }

    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) {
        if inEvent { problems.append("will-change inside an event") }
        inEvent = true
        sectionDeletes = []
        sectionInserts = []
        changes = []
    }

    func controller(_ controller: AnyFetchedResultsController, didChange sectionInfo: any FetchedResultsSectionInfo, atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        switch type {
        case .delete: sectionDeletes.append(sectionIndex)
        case .insert: sectionInserts.append((sectionIndex, sectionInfo.name))
        default: problems.append("section change \(type)")
        }
    }

    func controller(_ controller: AnyFetchedResultsController, didChange anObject: Any, at indexPath: IndexPath?, for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
        changes.append(ObjectChange(object: ObjectIdentifier(anObject as AnyObject), type: type, old: indexPath, new: newIndexPath))
        counts[type, default: 0] += 1
    }

    func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {
        inEvent = false
        events += 1
        apply()
    }

    private func apply() {
        var sections = table.sections
        let ids = changes.map(\.object)
        if Set(ids).count != ids.count { problems.append("an object reported twice in one event") }
        // Old paths must name the objects in the table before the changes.
        for change in changes where change.type != .insert {
            guard let old = change.old, sections.indices.contains(old.section), sections[old.section].items.indices.contains(old.item),
                sections[old.section].items[old.item] == change.object
            else {
                problems.append("\(change.type) at a wrong old path \(String(describing: change.old))")
                return
            }
        }
        var removals = changes.filter { $0.type == .delete || $0.type == .move }.compactMap(\.old)
        removals.sort { ($0.section, $0.item) > ($1.section, $1.item) }
        for path in removals { sections[path.section].items.remove(at: path.item) }
        for index in sectionDeletes.sorted(by: >) {
            if !sections[index].items.isEmpty { problems.append("deleted section \(index) not empty") }
            sections.remove(at: index)
        }
        for (index, name) in sectionInserts.sorted(by: { $0.index < $1.index }) {
            guard index <= sections.count else {
                problems.append("section insert beyond the end")
                return
            }
            sections.insert((name, []), at: index)
        }
        let insertions = changes.filter { $0.type == .insert || $0.type == .move }.sorted {
            guard let a = $0.new, let b = $1.new else { return false }
            return (a.section, a.item) < (b.section, b.item)
        }
        for change in insertions {
            guard let new = change.new, sections.indices.contains(new.section), new.item <= sections[new.section].items.count else {
                problems.append("\(change.type) at a wrong new path \(String(describing: change.new))")
                return
            }
            sections[new.section].items.insert(change.object, at: new.item)
        }
        for change in changes where change.type == .update {
            guard let new = change.new, sections.indices.contains(new.section), sections[new.section].items.indices.contains(new.item),
                sections[new.section].items[new.item] == change.object
            else {
                problems.append("update at a wrong new path \(String(describing: change.new))")
                continue
            }
        }
        table = TableState(sections: sections)
    }
}

/// A delegate that prefers snapshots and keeps the last one.
final class SnapshotRecorder: FetchedResultsControllerDelegate {
    var prefersContentSnapshots: Bool { true }
    private(set) var last: FetchedResultsSnapshot?
    private(set) var events = 0

    init(_ controller: AnyFetchedResultsController) { last = controller.snapshot }

    func controller(_ controller: AnyFetchedResultsController, didChangeContentWith snapshot: FetchedResultsSnapshot) {
        last = snapshot
        events += 1
    }

    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) {
        Issue.record("a snapshot delegate received individual changes")
    }
}
