import Foundation

/// The on-disk cache of a fetched-results controller's section layout (Core Data's `cacheName`):
/// section names, index titles and the object IDs of each section, in order, in a file named
/// after the cache in `<caches>/Strata/FetchedResults/`. It is valid only for the same request
/// (entity, predicate, sort descriptors, section key path) and for stores whose files have not
/// changed since it was written (size and modification time of each store file and its
/// write-ahead log; stores without a file are never cached). Reading it registers the objects
/// as faults without running the fetch.
///
/// Format: a magic line, a 16-byte checksum of the rest (`StableHash`), a 4-byte length and a
/// JSON header, then 16 bytes per object (entity index and store index as 32-bit integers,
/// primary key as a 64-bit integer, little-endian). A file whose checksum does not match is
/// ignored and deleted.
/// Thread-safe (files only); the objects are registered on the caller's context's queue.
struct FetchedResultsCache {
    let url: URL
    let fingerprint: String

    private static let magic = Data("STRATA-FRC-2\n".utf8)

    private struct Header: Codable {
        struct Section: Codable {
            var name: String
            var indexTitle: String?
            var count: Int
        }

        var fingerprint: String
        var stamp: String
        var stores: [String]
        var entities: [String]
        var sections: [Section]
    }

    init(name: String, fingerprint: String) {
        url = Self.directory.appendingPathComponent(Self.fileName(for: name))
        self.fingerprint = fingerprint
    }

    /// `<caches>/Strata/FetchedResults`.
    static var directory: URL {
        let caches =
            FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("Strata", isDirectory: true).appendingPathComponent("FetchedResults", isDirectory: true)
    }

    /// A file name for a cache name: letters, digits, `-` and `_` kept, others hex-escaped.
    static func fileName(for name: String) -> String {
        var result = ""
        for byte in name.utf8 {
            let scalar = Unicode.Scalar(byte)
            if (byte < 0x80 && (CharacterSet.alphanumerics.contains(scalar))) || byte == 0x2D || byte == 0x5F {
                result.unicodeScalars.append(scalar)
            } else {
                result += String(format: "%%%02X", byte)
            }
        }
        return result + ".frc"
    }

    /// Deletes the cache named `name`, or all caches for `nil`.
    static func delete(name: String?) {
        if let name {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(fileName(for: name)))
        } else {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// What the stores' files look like now; `nil` when a store has no file (the cache is
    /// then not used).
    static func stamp(of coordinator: PersistentStoreCoordinator) -> String? {
        var parts: [String] = []
        for store in coordinator.persistentStores {
            guard store.type == .sqlite, let url = store.url else { return nil }
            parts.append(store.identifier)
            for path in [url.path, url.path + "-wal"] {
                let attributes = try? FileManager.default.attributesOfItem(atPath: path)
                let size = (attributes?[.size] as? NSNumber)?.int64Value ?? -1
                let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                parts.append("\(size):\(modified.bitPattern)")
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "|")
    }

    // MARK: Writing

    /// Writes `layout` with `stamp` (taken before the fetch). A layout holding an unsaved
    /// object, or any failure to write, leaves no cache (a cache is an optimisation).
    func save(_ layout: ResultsLayout, stamp: String) {
        var stores: [String] = []
        var storeIndexes: [ObjectIdentifier: UInt32] = [:]
        var entities: [String] = []
        var entityIndexes: [String: UInt32] = [:]
        var body = Data()
        body.reserveCapacity(layout.count * 16)
        for section in layout.sections {
            for entry in section.entries {
                let id = entry.object.objectID
                guard let token = id.store, case .permanent(let key) = id.key else {
                    try? FileManager.default.removeItem(at: url)
                    return
                }
                let storeIndex =
                    storeIndexes[ObjectIdentifier(token)]
                    ?? {
                        stores.append(token.identifier)
                        storeIndexes[ObjectIdentifier(token)] = UInt32(stores.count - 1)
                        return UInt32(stores.count - 1)
                    }()
                let entityName = entry.object.entity.name
                let entityIndex =
                    entityIndexes[entityName]
                    ?? {
                        entities.append(entityName)
                        entityIndexes[entityName] = UInt32(entities.count - 1)
                        return UInt32(entities.count - 1)
                    }()
                withUnsafeBytes(of: entityIndex.littleEndian) { body.append(contentsOf: $0) }
                withUnsafeBytes(of: storeIndex.littleEndian) { body.append(contentsOf: $0) }
                withUnsafeBytes(of: key.littleEndian) { body.append(contentsOf: $0) }
            }
        }
        let header = Header(
            fingerprint: fingerprint, stamp: stamp, stores: stores, entities: entities,
            sections: layout.sections.map { Header.Section(name: $0.name, indexTitle: $0.indexTitle, count: $0.entries.count) })
        guard let json = try? JSONEncoder().encode(header) else { return }
        var rest = Data()
        withUnsafeBytes(of: UInt32(json.count).littleEndian) { rest.append(contentsOf: $0) }
        rest.append(json)
        rest.append(body)
        var file = Self.magic
        file.append(Self.checksum(rest))
        file.append(rest)
        do {
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            try file.write(to: url, options: .atomic)
        } catch {
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// The checksum of a cache file's contents after its magic line.
    private static func checksum(_ data: Data) -> Data {
        var hash = StableHash()
        hash.combine(data)
        return hash.data
    }

    // MARK: Reading

    /// The cached layout as entries (objects registered as faults in `context`), or `nil` when
    /// there is no cache, it is for another request, the stores changed, or it is damaged (a
    /// stale or damaged cache is deleted).
    func load(coordinator: PersistentStoreCoordinator, context: ManagedObjectContext) -> [ResultsEntry]? {
        guard let file = try? Data(contentsOf: url) else { return nil }
        guard let entries = decode(file, coordinator: coordinator, context: context) else {
            try? FileManager.default.removeItem(at: url)
            return nil
        }
        return entries
    }

    private func decode(_ file: Data, coordinator: PersistentStoreCoordinator, context: ManagedObjectContext) -> [ResultsEntry]? {
        let bytes = [UInt8](file)
        let magic = [UInt8](Self.magic)
        guard bytes.count >= magic.count + 20, Array(bytes[0..<magic.count]) == magic,
            Data(bytes[magic.count..<magic.count + 16]) == Self.checksum(Data(bytes[(magic.count + 16)...]))
        else { return nil }
        var offset = magic.count + 16
        func readUInt32() -> UInt32 {
            var value: UInt32 = 0
            for shift in 0..<4 { value |= UInt32(bytes[offset + shift]) << (8 * shift) }
            offset += 4
            return value
        }
        func readInt64() -> Int64 {
            var value: UInt64 = 0
            for shift in 0..<8 { value |= UInt64(bytes[offset + shift]) << (8 * shift) }
            offset += 8
            return Int64(bitPattern: value)
        }
        let headerLength = Int(readUInt32())
        guard headerLength <= bytes.count - offset,
            let header = try? JSONDecoder().decode(Header.self, from: Data(bytes[offset..<offset + headerLength]))
        else { return nil }
        offset += headerLength
        guard header.fingerprint == fingerprint, let stamp = Self.stamp(of: coordinator), header.stamp == stamp else { return nil }
        let total = header.sections.reduce(0) { $0 + max(0, $1.count) }
        guard header.sections.allSatisfy({ $0.count >= 0 }), bytes.count - offset == total * 16 else { return nil }
        let storesByIdentifier = Dictionary(coordinator.persistentStores.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        let stores = header.stores.map { storesByIdentifier[$0] }
        let entities = header.entities.map { coordinator.managedObjectModel.entitiesByName[$0] }
        var entries: [ResultsEntry] = []
        entries.reserveCapacity(total)
        for section in header.sections {
            for _ in 0..<section.count {
                let entityIndex = Int(readUInt32())
                let storeIndex = Int(readUInt32())
                let key = readInt64()
                guard entities.indices.contains(entityIndex), let entity = entities[entityIndex],
                    stores.indices.contains(storeIndex), let store = stores[storeIndex]
                else { return nil }
                let id = ManagedObjectID(entity: entity, primaryKey: key, store: store.backend.token)
                entries.append(ResultsEntry(object: context.object(with: id), key: nil, sectionName: section.name))
            }
        }
        return entries
    }
}
