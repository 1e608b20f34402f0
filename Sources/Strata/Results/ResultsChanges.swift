import Foundation

/// The changes of one event as a fetched-results controller reports them: sections deleted (at
/// their old index) and inserted (at their new index), and objects inserted, deleted, moved and
/// updated with their old and new index paths. Used on the controller's context's queue.
struct ResultsChanges {
    struct ObjectChange {
        let object: ManagedObject
        let type: FetchedResultsChangeType
        let oldPath: IndexPath?
        let newPath: IndexPath?
    }

    var deletedSections: [(section: ResultsSection, index: Int)] = []
    var insertedSections: [(section: ResultsSection, index: Int)] = []
    var objects: [ObjectChange] = []

    var isEmpty: Bool { deletedSections.isEmpty && insertedSections.isEmpty && objects.isEmpty }

    /// Puts the changes in a stable order: section deletes and inserts by index, then object
    /// deletes by old path, inserts and moves by new path, updates by old path.
    mutating func sort() {
        deletedSections.sort { $0.index < $1.index }
        insertedSections.sort { $0.index < $1.index }
        func rank(_ change: ObjectChange) -> (Int, IndexPath) {
            switch change.type {
            case .delete: return (0, change.oldPath ?? IndexPath())
            case .insert: return (1, change.newPath ?? IndexPath())
            case .move: return (2, change.newPath ?? IndexPath())
            case .update: return (3, change.oldPath ?? IndexPath())
            }
        }
        objects.sort { rank($0) < rank($1) }
    }
}

/// The longest increasing subsequence of `values`: the positions (in `values`) of a longest
/// run of strictly increasing values, in order. O(m log m).
func longestIncreasingRun(_ values: [Int]) -> [Int] {
    var tails: [Int] = []  // positions in `values`: tails[k] ends a run of length k + 1
    var previous = [Int](repeating: -1, count: values.count)
    for (position, value) in values.enumerated() {
        var low = 0
        var high = tails.count
        while low < high {
            let middle = (low + high) / 2
            if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
        }
        if low > 0 { previous[position] = tails[low - 1] }
        if low == tails.count { tails.append(position) } else { tails[low] = position }
    }
    var run: [Int] = []
    var cursor = tails.last ?? -1
    while cursor >= 0 {
        run.append(cursor)
        cursor = previous[cursor]
    }
    return run.reversed()
}

extension ResultsLayout {
    /// Applies one event in place and says what changed, in O(k · log n) comparisons for k
    /// objects named: `gone` left the context (deleted, invalidated); `changed` may have
    /// entered, left, moved or changed (inserted, updated, refreshed, or related to such an
    /// object). A changed object that stays at its place is reported as an update when it is
    /// in `reportingUpdates` (the others stay silent: a save that only gave an object its
    /// permanent ID).
    func apply(changed: [ManagedObject], gone: [ManagedObject], reportingUpdates: Set<ObjectIdentifier>) -> ResultsChanges {
        struct Moving {
            let entry: ResultsEntry
            let oldSection: ResultsSection
            let oldPath: IndexPath
            let newKey: ResultsOrder.Key
            let newSectionName: String
            var newPath = IndexPath()
        }
        let oldSectionIndexes = sectionIndexes()
        var report = ResultsChanges()
        var leaving: [(entry: ResultsEntry, section: ResultsSection, path: IndexPath)] = []
        var moving: [Moving] = []
        var staying: [(entry: ResultsEntry, path: IndexPath)] = []
        var arriving: [ResultsEntry] = []
        var seen = Set<ObjectIdentifier>()

        func leave(_ entry: ResultsEntry) {
            guard let section = section(of: entry), let path = indexPath(of: entry, sectionIndexes: oldSectionIndexes) else { return }
            leaving.append((entry, section, path))
        }
        for object in gone where seen.insert(ObjectIdentifier(object)).inserted {
            if let entry = entry(for: object) { leave(entry) }
        }
        for object in changed where seen.insert(ObjectIdentifier(object)).inserted {
            let existing = entry(for: object)
            let belongs = order.includes(object)
            switch (existing, belongs) {
            case (nil, false):
                continue
            case (nil, true):
                arriving.append(ResultsEntry(object: object, key: order.key(of: object), sectionName: order.sectionName(of: object)))
            case (let entry?, false):
                leave(entry)
            case (let entry?, true):
                let newKey = order.key(of: object)
                let newName = order.sectionName(of: object)
                guard let section = section(of: entry), let path = indexPath(of: entry, sectionIndexes: oldSectionIndexes) else { continue }
                if let oldKey = entry.key, order.same(oldKey, newKey), newName == entry.sectionName {
                    renewRelated(of: entry)
                    if reportingUpdates.contains(ObjectIdentifier(object)) { staying.append((entry, path)) }
                } else {
                    moving.append(Moving(entry: entry, oldSection: section, oldPath: path, newKey: newKey, newSectionName: newName))
                }
            }
        }
        guard !(leaving.isEmpty && moving.isEmpty && staying.isEmpty && arriving.isEmpty) else { return report }

        // Take out what leaves or moves, then put back what moves and arrives.
        for item in leaving { remove(item.entry) }
        for item in moving { remove(item.entry) }
        for item in moving {
            item.entry.key = item.newKey
            item.entry.sectionName = item.newSectionName
            insert(item.entry)
        }
        for entry in arriving { insert(entry) }
        let emptied = dropEmptySections()
        let newSectionIndexes = sectionIndexes()
        for section in emptied {
            if let index = oldSectionIndexes[ObjectIdentifier(section)] { report.deletedSections.append((section, index)) }
        }
        for (index, section) in sections.enumerated() where oldSectionIndexes[ObjectIdentifier(section)] == nil {
            report.insertedSections.append((section, index))
        }

        // New places.
        for index in moving.indices {
            moving[index].newPath = indexPath(of: moving[index].entry, sectionIndexes: newSectionIndexes) ?? IndexPath()
        }
        var arrivingPaths: [(entry: ResultsEntry, path: IndexPath)] = []
        for entry in arriving {
            if let path = indexPath(of: entry, sectionIndexes: newSectionIndexes) { arrivingPaths.append((entry, path)) }
        }

        // A moving object that keeps its place among the objects that stay put needs no move:
        // per section, its rank among them must be unchanged and its order among the other such
        // objects of that rank kept (a longest increasing run).
        var removedOld: [ObjectIdentifier: [Int]] = [:]
        var addedNew: [ObjectIdentifier: [Int]] = [:]
        for item in leaving { removedOld[ObjectIdentifier(item.section), default: []].append(item.path.item) }
        for item in moving {
            removedOld[ObjectIdentifier(item.oldSection), default: []].append(item.oldPath.item)
            if let section = section(of: item.entry) { addedNew[ObjectIdentifier(section), default: []].append(item.newPath.item) }
        }
        for item in arrivingPaths {
            if let section = section(of: item.entry) { addedNew[ObjectIdentifier(section), default: []].append(item.path.item) }
        }
        for key in removedOld.keys { removedOld[key]?.sort() }
        for key in addedNew.keys { addedNew[key]?.sort() }
        func countBelow(_ sorted: [Int], _ value: Int) -> Int {
            var low = 0
            var high = sorted.count
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle] < value { low = middle + 1 } else { high = middle }
            }
            return low
        }
        struct Gap: Hashable {
            let section: ObjectIdentifier
            let rank: Int
        }
        var gaps: [Gap: [Int]] = [:]  // positions in `moving`
        for (position, item) in moving.enumerated() {
            guard let section = section(of: item.entry), section === item.oldSection,
                oldSectionIndexes[ObjectIdentifier(section)] != nil
            else { continue }
            let id = ObjectIdentifier(section)
            let oldRank = item.oldPath.item - countBelow(removedOld[id] ?? [], item.oldPath.item)
            let newRank = item.newPath.item - countBelow(addedNew[id] ?? [], item.newPath.item)
            if oldRank == newRank { gaps[Gap(section: id, rank: oldRank), default: []].append(position) }
        }
        var kept = Set<Int>()
        for positions in gaps.values {
            let byNew = positions.sorted { moving[$0].newPath.item < moving[$1].newPath.item }
            for index in longestIncreasingRun(byNew.map { moving[$0].oldPath.item }) { kept.insert(byNew[index]) }
        }

        // Report.
        for item in leaving {
            report.objects.append(.init(object: item.entry.object, type: .delete, oldPath: item.path, newPath: nil))
        }
        for item in arrivingPaths {
            report.objects.append(.init(object: item.entry.object, type: .insert, oldPath: nil, newPath: item.path))
        }
        for (position, item) in moving.enumerated() {
            if kept.contains(position) {
                guard reportingUpdates.contains(ObjectIdentifier(item.entry.object)) else { continue }
                report.objects.append(.init(object: item.entry.object, type: .update, oldPath: item.oldPath, newPath: item.newPath))
            } else {
                report.objects.append(.init(object: item.entry.object, type: .move, oldPath: item.oldPath, newPath: item.newPath))
            }
        }
        for item in staying {
            let newPath = indexPath(of: item.entry, sectionIndexes: newSectionIndexes)
            report.objects.append(.init(object: item.entry.object, type: .update, oldPath: item.path, newPath: newPath))
        }
        report.sort()
        return report
    }
}
