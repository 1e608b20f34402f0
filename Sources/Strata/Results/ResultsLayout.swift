import Foundation

/// One fetched object in a controller's layout, with its place in the order as last computed.
/// Used on the controller's context's queue.
final class ResultsEntry {
    let object: ManagedObject
    /// The object's key when it was last placed; `nil` until first needed (a layout read from a
    /// cache places objects without loading them).
    var key: ResultsOrder.Key?
    /// The name of the section the entry is in.
    var sectionName: String
    /// The objects the entry's key paths reached through relationships when it was placed.
    var reached: [ObjectIdentifier] = []

    init(object: ManagedObject, key: ResultsOrder.Key?, sectionName: String) {
        self.object = object
        self.key = key
        self.sectionName = sectionName
    }
}

/// One section of a controller's results. Used on the controller's context's queue.
final class ResultsSection: FetchedResultsSectionInfo {
    let name: String
    let indexTitle: String?
    /// The section's entries, in the fetch's order.
    var entries: [ResultsEntry] = []
    /// The key of an entry the section held, for placing sections while it is empty.
    var anchor: ResultsOrder.Key?

    init(name: String, indexTitle: String?) {
        self.name = name
        self.indexTitle = indexTitle
    }

    var numberOfObjects: Int { entries.count }
    var objects: [Any]? { entries.map(\.object) }
}

/// A controller's results: sections in order, each an ordered array of entries, and an index
/// from object to entry. Finding an object is a binary search on its last key (O(log n)
/// comparisons, checked by identity, with a scan of its section as the fallback); inserting or
/// removing one moves the rest of its section's array. Used on the controller's context's
/// queue.
final class ResultsLayout {
    let order: ResultsOrder
    private(set) var sections: [ResultsSection] = []
    private var sectionsByName: [String: ResultsSection] = [:]
    private(set) var entries: [ObjectIdentifier: ResultsEntry] = [:]
    /// Objects the results' key paths reach through relationships, held so that their changes
    /// reach the context's notifications (see ``ResultsOrder/relatedObjects(of:)``), with the
    /// results that reach each.
    private var related: [ObjectIdentifier: (object: ManagedObject, dependents: Set<ObjectIdentifier>)] = [:]
    private let indexTitle: (String) -> String?

    init(order: ResultsOrder, indexTitle: @escaping (String) -> String?) {
        self.order = order
        self.indexTitle = indexTitle
    }

    /// The number of objects.
    var count: Int { entries.count }

    /// Every object in order.
    var objects: [ManagedObject] { sections.flatMap { $0.entries.map(\.object) } }

    /// The entry of `object`, if it is in the results.
    func entry(for object: ManagedObject) -> ResultsEntry? { entries[ObjectIdentifier(object)] }

    // MARK: Building

    /// Lays out `objects` (in any order): sorts them by key and groups them into sections.
    /// Throws when a section's objects are not contiguous in the order: the first sort
    /// descriptor does not group by the section key path.
    func build(_ objects: [ManagedObject]) throws {
        var keyed = objects.map { (key: order.key(of: $0), object: $0) }
        keyed.sort { order.compare($0.key, $1.key) < 0 }
        try fill(keyed.map { ResultsEntry(object: $0.object, key: $0.key, sectionName: order.sectionName(of: $0.object)) })
    }

    /// Records (and holds) the objects `entry` reaches through the related chains.
    private func noteRelated(of entry: ResultsEntry) {
        guard !order.relatedChains.isEmpty else { return }
        let root = ObjectIdentifier(entry.object)
        entry.reached = []
        for object in order.relatedObjects(of: entry.object) {
            let id = ObjectIdentifier(object)
            if related[id] == nil { related[id] = (object, []) }
            if related[id]?.dependents.insert(root).inserted == true { entry.reached.append(id) }
        }
    }

    /// Records again what `entry` reaches (its relationships may have changed in place).
    func renewRelated(of entry: ResultsEntry) {
        guard !order.relatedChains.isEmpty else { return }
        forgetRelated(of: entry)
        noteRelated(of: entry)
    }

    /// Forgets what `entry` reached (releasing objects nothing else reaches).
    private func forgetRelated(of entry: ResultsEntry) {
        let root = ObjectIdentifier(entry.object)
        for id in entry.reached {
            related[id]?.dependents.remove(root)
            if related[id]?.dependents.isEmpty == true { related[id] = nil }
        }
        entry.reached = []
    }

    /// The results whose key paths reached `object` through a relationship.
    func dependents(of object: ManagedObject) -> [ManagedObject] {
        guard let ids = related[ObjectIdentifier(object)]?.dependents else { return [] }
        return ids.compactMap { entries[$0]?.object }
    }

    /// Lays out entries already in order (a cached layout: keys unknown), grouping consecutive
    /// entries of one section name. Throws as ``build(_:)``.
    func fill(_ ordered: [ResultsEntry]) throws {
        sections = []
        sectionsByName = [:]
        entries = [:]
        related = [:]
        entries.reserveCapacity(ordered.count)
        var current: ResultsSection?
        for entry in ordered {
            if current?.name != entry.sectionName {
                if sectionsByName[entry.sectionName] != nil {
                    let path = order.sectionNameKeyPath ?? ""
                    let first = order.plan.sourceSortDescriptors.first?.key ?? "(none)"
                    throw StrataError(
                        code: StrataError.Code.coreData,
                        message:
                            "The objects of section '\(entry.sectionName)' are not together in the fetch's order: the first sort descriptor ('\(first)') must group the objects by the section name key path '\(path)'",
                        entityName: order.plan.entity.name, key: path)
                }
                let section = ResultsSection(name: entry.sectionName, indexTitle: indexTitle(entry.sectionName))
                sections.append(section)
                sectionsByName[section.name] = section
                current = section
            }
            current?.entries.append(entry)
            entries[ObjectIdentifier(entry.object)] = entry
            noteRelated(of: entry)
        }
        for section in sections { section.anchor = section.entries.first?.key }
    }

    // MARK: Finding

    /// `entry`'s key, computed now if it was never computed.
    func key(of entry: ResultsEntry) -> ResultsOrder.Key {
        if let key = entry.key { return key }
        let key = order.key(of: entry.object)
        entry.key = key
        return key
    }

    /// The section an entry is in.
    func section(of entry: ResultsEntry) -> ResultsSection? { sectionsByName[entry.sectionName] }

    /// The position of each section, by identity. O(sections).
    func sectionIndexes() -> [ObjectIdentifier: Int] {
        var indexes: [ObjectIdentifier: Int] = [:]
        indexes.reserveCapacity(sections.count)
        for (index, section) in sections.enumerated() { indexes[ObjectIdentifier(section)] = index }
        return indexes
    }

    /// The index of `entry` in its section, by a binary search on its key, checked by identity
    /// (a scan of the section when the keys disagree).
    func index(of entry: ResultsEntry, in section: ResultsSection) -> Int? {
        if let key = entry.key {
            let candidate = lowerBound(key, in: section)
            if candidate < section.entries.count, section.entries[candidate] === entry { return candidate }
        }
        return section.entries.firstIndex { $0 === entry }
    }

    /// The first index in `section` whose entry does not come before `key`.
    private func lowerBound(_ key: ResultsOrder.Key, in section: ResultsSection) -> Int {
        var low = 0
        var high = section.entries.count
        while low < high {
            let middle = (low + high) / 2
            if order.compare(self.key(of: section.entries[middle]), key) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The index path of `entry` given the current section positions.
    func indexPath(of entry: ResultsEntry, sectionIndexes: [ObjectIdentifier: Int]) -> IndexPath? {
        guard let section = section(of: entry), let sectionIndex = sectionIndexes[ObjectIdentifier(section)],
            let item = index(of: entry, in: section)
        else { return nil }
        return IndexPath(item: item, section: sectionIndex)
    }

    // MARK: Changing

    /// Takes `entry` out of its section (the section stays, even when empty, until
    /// ``dropEmptySections()``).
    func remove(_ entry: ResultsEntry) {
        entries[ObjectIdentifier(entry.object)] = nil
        forgetRelated(of: entry)
        guard let section = section(of: entry), let index = index(of: entry, in: section) else { return }
        if section.entries.count == 1, section.anchor == nil { section.anchor = key(of: entry) }
        section.entries.remove(at: index)
    }

    /// Puts `entry` (its key and section name set) at its place, making its section if there is
    /// none. Returns whether a section was made.
    @discardableResult
    func insert(_ entry: ResultsEntry) -> Bool {
        let key = self.key(of: entry)
        entries[ObjectIdentifier(entry.object)] = entry
        noteRelated(of: entry)
        if let section = sectionsByName[entry.sectionName] {
            section.entries.insert(entry, at: lowerBound(key, in: section))
            if section.anchor == nil { section.anchor = key }
            return false
        }
        let section = ResultsSection(name: entry.sectionName, indexTitle: indexTitle(entry.sectionName))
        section.entries = [entry]
        section.anchor = key
        var low = 0
        var high = sections.count
        while low < high {
            let middle = (low + high) / 2
            let before = anchor(of: sections[middle]).map { order.compare($0, key) < 0 } ?? true
            if before { low = middle + 1 } else { high = middle }
        }
        sections.insert(section, at: low)
        sectionsByName[section.name] = section
        return true
    }

    private func anchor(of section: ResultsSection) -> ResultsOrder.Key? {
        if let first = section.entries.first { return key(of: first) }
        return section.anchor
    }

    /// Removes the sections left empty; returns them.
    func dropEmptySections() -> [ResultsSection] {
        let empty = sections.filter(\.entries.isEmpty)
        guard !empty.isEmpty else { return [] }
        sections.removeAll(where: \.entries.isEmpty)
        for section in empty { sectionsByName[section.name] = nil }
        return empty
    }
}
