import Foundation

extension ResultsLayout {
    /// The changes that turn `old` into `self`, objects matched by identity (after `reset()` the
    /// context has new instances: every old object leaves and every new one arrives), sections
    /// by name; objects that leave or arrive; among the objects in both, those that stay in the same section along a
    /// longest run in the same order stay put (updates when in `reportingUpdates`), the others
    /// move. O(n log n); the fallback when an event cannot be applied in place.
    func changes(from old: ResultsLayout, reportingUpdates: Set<ObjectIdentifier>) -> ResultsChanges {
        var report = ResultsChanges()
        struct Place {
            let section: Int
            let item: Int
            let object: ManagedObject
        }
        var oldPlaces: [ObjectIdentifier: Place] = [:]
        oldPlaces.reserveCapacity(old.count)
        for (sectionIndex, section) in old.sections.enumerated() {
            for (item, entry) in section.entries.enumerated() {
                oldPlaces[ObjectIdentifier(entry.object)] = Place(section: sectionIndex, item: item, object: entry.object)
            }
        }
        let oldNames = Set(old.sections.map(\.name))
        let newNames = Set(sections.map(\.name))
        for (index, section) in old.sections.enumerated() where !newNames.contains(section.name) {
            report.deletedSections.append((section, index))
        }
        for (index, section) in sections.enumerated() where !oldNames.contains(section.name) {
            report.insertedSections.append((section, index))
        }
        var present = Set<ObjectIdentifier>()
        var oldSectionIndexes: [String: Int] = [:]
        for (index, section) in old.sections.enumerated() { oldSectionIndexes[section.name] = index }
        for (sectionIndex, section) in sections.enumerated() {
            let oldSectionIndex = oldSectionIndexes[section.name]
            var common: [(item: Int, oldItem: Int)] = []
            for (item, entry) in section.entries.enumerated() {
                let id = ObjectIdentifier(entry.object)
                present.insert(id)
                let newPath = IndexPath(item: item, section: sectionIndex)
                guard let place = oldPlaces[id] else {
                    report.objects.append(.init(object: entry.object, type: .insert, oldPath: nil, newPath: newPath))
                    continue
                }
                if place.section == oldSectionIndex {
                    common.append((item, place.item))
                } else {
                    let oldPath = IndexPath(item: place.item, section: place.section)
                    report.objects.append(.init(object: entry.object, type: .move, oldPath: oldPath, newPath: newPath))
                }
            }
            let staying = Set(longestIncreasingRun(common.map(\.oldItem)))
            for (position, pair) in common.enumerated() {
                let object = section.entries[pair.item].object
                let oldPath = IndexPath(item: pair.oldItem, section: oldSectionIndex ?? 0)
                let newPath = IndexPath(item: pair.item, section: sectionIndex)
                if !staying.contains(position) {
                    report.objects.append(.init(object: object, type: .move, oldPath: oldPath, newPath: newPath))
                } else if reportingUpdates.contains(ObjectIdentifier(object)) {
                    report.objects.append(.init(object: object, type: .update, oldPath: oldPath, newPath: newPath))
                }
            }
        }
        for (id, place) in oldPlaces where !present.contains(id) {
            report.objects.append(.init(object: place.object, type: .delete, oldPath: IndexPath(item: place.item, section: place.section), newPath: nil))
        }
        report.sort()
        return report
    }
}
