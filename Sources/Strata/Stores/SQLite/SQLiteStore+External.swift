import Foundation
import StrataSQLite

/// External binary storage on the SQLite store's paths: the column value to write for a new
/// value, the value a column's reference stands for, the references a row is about to drop, and
/// the sweeps that remove files nothing refers to (the guarantees are described at the top of
/// `ExternalBinaryStorage.swift`).
extension SQLiteStore {
    // MARK: Hooks for migration

    /// Every `(table, column)` of `model`'s SQLite layout that may hold references to external
    /// binary data files: the columns of binary-data and transformable attributes, flagged or
    /// not. A migration copies their values untouched. Callable from any thread.
    static func externalReferenceColumns(for model: ManagedObjectModel) -> [ExternalBinaryStatements.Column] {
        ExternalBinaryStatements(schema: SQLiteSchema(model: model)).columns
    }

    /// The folder of the external binary data files of the store file at `url`
    /// (`.<StoreName>_SUPPORT/_EXTERNAL_DATA`). Callable from any thread.
    static func externalDataFolder(forStoreAt url: URL) -> URL {
        ExternalBinaryStorage.folder(forStoreAt: url)
    }

    /// The threshold `options` ask for (`PersistentStoreOption.externalBinaryDataThreshold`).
    static func externalThreshold(_ options: [String: any Sendable]) -> Int {
        if let bytes = options[PersistentStoreOption.externalBinaryDataThreshold] as? Int { return bytes }
        if let bytes = options[PersistentStoreOption.externalBinaryDataThreshold] as? Int64 { return Int(clamping: bytes) }
        return ExternalBinaryStorage.defaultThreshold
    }

    // MARK: Writing

    /// The column value for a new `value` of attribute `slot`: a reference to a durably written
    /// file when the slot is one of `externalSlots` and the value reaches the threshold, else the
    /// value itself. Call inside the write transaction that writes the row.
    func columnValue(_ value: StoredValue, slot: Int, externalSlots: [Int]) throws -> SQLiteValue {
        guard case .blob(let data) = value, data.count >= external.threshold, externalSlots.contains(slot) else { return value.sqliteValue }
        return .text(ExternalBinaryReference.text(hash: try external.write(data)))
    }

    /// Records the references the row `pk` of `entity` holds in `slots` (nil: every reference
    /// slot) as candidates for removal once the transaction ends: call before the row is updated
    /// or deleted, inside the write transaction.
    func noteReferencesDropped(by entity: EntityDescription, pk: Int64, slots: [Int]?, on connection: SQLiteConnection) throws {
        let referenceSlots = externalSQL.referenceSlots(of: entity)
        guard !referenceSlots.isEmpty, let sql = externalSQL.rowReferences(of: entity) else { return }
        if let slots, !slots.contains(where: referenceSlots.contains) { return }
        // No folder, no file to remove (the write lock is held: none can appear meanwhile).
        guard external.folderExists else { return }
        try connection.cachedStatement(sql).forEachRow([.integer(pk)]) { row in
            for (index, slot) in referenceSlots.enumerated() where slots?.contains(slot) ?? true {
                if let hash = ExternalBinaryReference.hash(in: row.storedValue(at: Int32(index))) { external.noteCandidate(hash) }
            }
        }
    }

    /// Whether a batch request that writes or deletes rows of `entities` may drop references
    /// (then every file is compared after it: it does not say which values it dropped).
    func noteBatchMayDropReferences(_ entities: [EntityDescription]) {
        if entities.contains(where: { !externalSQL.referenceSlots(of: $0).isEmpty }) { external.noteSweepAll() }
    }

    // MARK: Reading

    /// `value` with a reference replaced by the bytes of its file.
    func resolvedValue(_ value: StoredValue) throws -> StoredValue {
        guard let hash = ExternalBinaryReference.hash(in: value) else { return value }
        return .blob(try external.read(hash: hash))
    }

    /// Replaces the references in `slots` of a decoded row's attributes by their bytes.
    func resolveReferences(_ attributes: inout StoredValues, slots: [Int]) throws {
        for slot in slots where slot < attributes.count {
            if case .text = attributes[slot] { attributes[slot] = try resolvedValue(attributes[slot]) }
        }
    }

    // MARK: Removing

    /// After a write transaction ends (committed or rolled back): removes the candidate files
    /// nothing refers to any more, in a write transaction of its own. Failures leave orphans for
    /// the next open, never a reference without a file. Callable from any thread.
    ///
    /// While a reader of this store is in use (a fetch running, a query generation pinned) the
    /// candidates are kept for a later sweep instead: such a reader may have read a reference
    /// before the commit and be about to open its file. They are checked after a later write,
    /// when the store closes, or, at the latest, when it next opens.
    func sweepExternalData(waitingForReaders: Bool = true) {
        guard external.hasPending, !(waitingForReaders && pool.hasReadersInUse) else { return }
        try? pool.withWriter { connection in
            try connection.transaction(Self.writeTransaction) {
                if waitingForReaders && pool.hasReadersInUse { return }
                let pending = external.takePending()
                if pending.sweepsAll {
                    try collectUnreferencedFiles(on: connection)
                    return
                }
                external.remove(try unreferenced(pending.candidates, on: connection))
            }
        }
    }

    /// Orphan collection when the store opens (see "Hooks for migration" in
    /// `ExternalBinaryStorage.swift`: only here, after the version hashes were checked).
    func collectExternalOrphans() {
        guard !configuration.refusesWrites else { return }
        let (files, temporary) = external.listFiles()
        guard !files.isEmpty || !temporary.isEmpty else { return }
        _ = external.takePending()
        try? pool.withWriter { connection in
            try connection.transaction(Self.writeTransaction) { try collectUnreferencedFiles(on: connection) }
        }
    }

    /// Removes every temporary file and every file no reference column refers to. Runs inside a
    /// write transaction, so no writer has a file written and not yet committed.
    private func collectUnreferencedFiles(on connection: SQLiteConnection) throws {
        let (files, temporary) = external.listFiles()
        guard !files.isEmpty || !temporary.isEmpty else { return }
        var referenced = Set<String>()
        for column in externalSQL.columns {
            try connection.cachedStatement(ExternalBinaryStatements.references(in: column)).forEachRow { row in
                if let hash = ExternalBinaryReference.hash(in: row.storedValue(at: 0)) { referenced.insert(hash) }
            }
        }
        external.remove(temporary + files.filter { !referenced.contains($0) })
    }

    /// The candidates no reference column refers to. A few are looked up one by one (each
    /// lookup scans the columns); more are checked against one scan of every column.
    private func unreferenced(_ candidates: Set<String>, on connection: SQLiteConnection) throws -> [String] {
        if candidates.count <= 4 {
            var result: [String] = []
            for hash in candidates.sorted() where try !isReferenced(hash, on: connection) { result.append(hash) }
            return result
        }
        var left = candidates
        for column in externalSQL.columns where !left.isEmpty {
            try connection.cachedStatement(ExternalBinaryStatements.references(in: column)).forEachRow { row in
                if let hash = ExternalBinaryReference.hash(in: row.storedValue(at: 0)) { left.remove(hash) }
            }
        }
        return left.sorted()
    }

    private func isReferenced(_ hash: String, on connection: SQLiteConnection) throws -> Bool {
        let text = SQLiteValue.text(ExternalBinaryReference.text(hash: hash))
        for column in externalSQL.columns {
            var found = false
            try connection.cachedStatement(ExternalBinaryStatements.holds(column)).forEachRow([text]) { _ in found = true }
            if found { return true }
        }
        return false
    }
}
