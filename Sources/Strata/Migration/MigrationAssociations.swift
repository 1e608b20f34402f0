import Foundation

/// Which destination instances each entity mapping made from which source instances.
///
/// Sources are kept by object ID (they are saved objects). Destinations are kept as objects
/// until the destination context saves them, then by their permanent IDs (``settle()``), so a
/// batch save lets the context forget them. Used on the migrating thread only.
struct MigrationAssociations {
    /// One mapping's associations.
    struct Table {
        /// Source → destinations, in order of association.
        var destinationsBySource: [ManagedObjectID: [ManagedObjectID]] = [:]
        /// Destination → sources.
        var sourcesByDestination: [ManagedObjectID: [ManagedObjectID]] = [:]
        /// Every saved destination in order of association.
        var destinations: [ManagedObjectID] = []
        /// Every source in order of first association.
        var sources: [ManagedObjectID] = []
        /// Associations whose destination is not saved yet.
        var pending: [(source: ManagedObjectID, destination: ManagedObject)] = []
    }

    private(set) var tables: [String: Table] = [:]

    mutating func associate(source: ManagedObjectID, destination: ManagedObject, mappingName: String) {
        tables[mappingName, default: Table()].pending.append((source, destination))
    }

    /// Moves the pending associations to IDs, once the destination context has saved them
    /// (their IDs are then permanent). Destinations deleted before the save are dropped.
    mutating func settle() {
        for name in tables.keys {
            guard var table = tables[name], !table.pending.isEmpty else { continue }
            for (source, destination) in table.pending where !destination.objectID.isTemporaryID {
                let id = destination.objectID
                if table.destinationsBySource[source] == nil { table.sources.append(source) }
                table.destinationsBySource[source, default: []].append(id)
                if table.sourcesByDestination[id] == nil { table.destinations.append(id) }
                table.sourcesByDestination[id, default: []].append(source)
            }
            table.pending = []
            tables[name] = table
        }
    }

    /// The destinations of `mappingName` made from `sources` (all when `nil`), saved or pending.
    func destinations(mappingName: String, sources: [ManagedObjectID]?, in context: ManagedObjectContext) -> [ManagedObject] {
        guard let table = tables[mappingName] else { return [] }
        guard let sources else {
            return members(mappingName: mappingName).map { $0.object(in: context) }
        }
        var found: [ManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        for source in sources {
            let saved = (table.destinationsBySource[source] ?? []).map { context.object(with: $0) }
            let pending = table.pending.lazy.filter { $0.source == source }.map(\.destination)
            for object in saved + pending where seen.insert(ObjectIdentifier(object)).inserted { found.append(object) }
        }
        return found
    }

    /// The sources of `mappingName` for `destinations` (all when `nil`).
    func sourceIDs(mappingName: String, destinations: [ManagedObject]?) -> [ManagedObjectID] {
        guard let table = tables[mappingName] else { return [] }
        guard let destinations else {
            var all = table.sources
            var seen = Set(all)
            for entry in table.pending where seen.insert(entry.source).inserted { all.append(entry.source) }
            return all
        }
        var found: [ManagedObjectID] = []
        var seen = Set<ManagedObjectID>()
        for destination in destinations {
            let saved = table.sourcesByDestination[destination.objectID] ?? []
            let pending = table.pending.lazy.filter { $0.destination === destination }.map(\.source)
            for id in saved + pending where seen.insert(id).inserted { found.append(id) }
        }
        return found
    }

    /// A destination instance of a mapping: saved (by ID) or not yet.
    enum Member {
        case saved(ManagedObjectID)
        case pending(ManagedObject)

        /// The instance as an object of `context`.
        func object(in context: ManagedObjectContext) -> ManagedObject {
            switch self {
            case .saved(let id): return context.object(with: id)
            case .pending(let object): return object
            }
        }
    }

    /// Every destination instance of `mappingName`, saved ones first, each once.
    func members(mappingName: String) -> [Member] {
        guard let table = tables[mappingName] else { return [] }
        var seen = Set<ObjectIdentifier>()
        let pending = table.pending.compactMap { entry in seen.insert(ObjectIdentifier(entry.destination)).inserted ? Member.pending(entry.destination) : nil }
        return table.destinations.map(Member.saved) + pending
    }
}
