import Foundation
import StrataSQLite

/// Lightweight migration of a SQLite store, in place: finding the source model, inferring the
/// mapping, and running `MigrationStatements` in one write transaction. See
/// docs/models-and-migration.md.
extension SQLiteStore {
    /// Migrates the store file at `url` from `sourceModel` to `destinationModel` with `mapping`,
    /// in place, and returns what changed. The seam of every in-place step: automatic migration
    /// on open, the dry run (on a copy), and a staged migration's lightweight stages, which call
    /// it once per step. Opens its own connection (no other connection may be writing);
    /// throws 134110 when the mapping cannot be run or a statement fails, and the file is then
    /// as before (all-or-nothing). Runs on the calling thread.
    static func migrateInPlace(at url: URL, from sourceModel: ManagedObjectModel, to destinationModel: ManagedObjectModel, mapping: MappingModel) throws -> MigrationReport {
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: url.path, configuration: SQLiteConfiguration())
            try SQLiteCustomFunctions.register(on: connection)
        } catch {
            throw StrataError.wrapping(error, while: "Opening the store to migrate it", url: url, defaultCode: StrataError.Code.persistentStoreOpen)
        }
        return try migrateInPlace(on: connection, url: url, from: sourceModel, to: destinationModel, mapping: mapping)
    }

    /// ``migrateInPlace(at:from:to:mapping:)`` on an open writer connection: checkpoints the WAL
    /// into the database file (`PRAGMA wal_checkpoint(TRUNCATE)`), then, in one `BEGIN IMMEDIATE`
    /// transaction, rebuilds the tables, remaps entity codes and keys, recreates the indexes and
    /// writes the destination model's version hashes into the metadata. Any error rolls the
    /// transaction back.
    static func migrateInPlace(
        on connection: SQLiteConnection, url: URL, from sourceModel: ManagedObjectModel, to destinationModel: ManagedObjectModel, mapping: MappingModel
    ) throws -> MigrationReport {
        try StrataTrace.span("lightweight migration", .migration, arguments: TraceArguments(.text("store", url.path))) {
            try migrateTables(on: connection, url: url, from: sourceModel, to: destinationModel, mapping: mapping)
        }
    }

    /// ``migrateInPlace(on:url:from:to:mapping:)``'s work.
    private static func migrateTables(
        on connection: SQLiteConnection, url: URL, from sourceModel: ManagedObjectModel, to destinationModel: ManagedObjectModel, mapping: MappingModel
    ) throws -> MigrationReport {
        func failure(_ error: any Error) -> StrataError {
            let cause = StrataError.wrapping(error, while: "Migrating the store", url: url)
            var wrapped = StrataError(code: StrataError.Code.migration, message: "Migrating the store failed; it is unchanged: \(error)", url: url)
            // A SQLite failure (I/O error, full disk, busy) stays visible on the error itself.
            wrapped.sqliteCode = cause.sqliteCode
            wrapped.sqliteExtendedCode = cause.sqliteExtendedCode
            wrapped.sqliteMessage = cause.sqliteMessage
            wrapped.underlyingErrors = [cause]
            return wrapped
        }
        do {
            try sourceModel.freeze()
            try destinationModel.freeze()
            let plan = try MigrationStatements(source: SQLiteSchema(model: sourceModel), destination: SQLiteSchema(model: destinationModel), mapping: mapping)
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return try connection.transaction(writeTransaction) {
                var metadata = try readMetadata(on: connection, url: url)
                let sourceHash = metadata[StoreMetadataKey.modelVersionHash] as? String ?? ""
                // Another connection may have migrated the store while this one waited for the lock.
                let destinationHash = destinationModel.versionHash.hexString
                if sourceHash == destinationHash {
                    return MigrationReport(sourceVersionHash: sourceHash, destinationVersionHash: destinationHash, isMigrationNeeded: false, entityChanges: [])
                }
                guard sourceHash == sourceModel.versionHash.hexString else {
                    throw StrataError(
                        code: StrataError.Code.migration, message: "The store's version hash is not the source model's (\(sourceHash.prefix(12))…): it was not made with that model",
                        url: url)
                }
                var before: [String: Int] = [:]
                for entity in sourceModel.entities {
                    if let sql = MigrationStatements.rowCount(of: entity, in: plan.source) { before[entity.name] = try count(sql, on: connection) }
                }
                var ceilings: [String: Int64] = [:]
                for table in plan.source.tableOrder {
                    guard let sql = plan.ceilingQuery(ofSourceTable: table) else { continue }
                    try connection.makeStatement(sql).forEachRow { ceilings[table] = $0.int64(at: 0) }
                }
                for check in plan.requiredValueChecks() {
                    let missing = try count(check.sql, on: connection)
                    guard missing == 0 else {
                        var error = StrataError(
                            code: StrataError.Code.validationMissingMandatoryProperty,
                            message:
                                "\(check.place) is required in the new model version and has no default value, but \(missing) instance(s) have no value: give them one before the migration (a CustomMigrationStage's willMigrateHandler) or give the attribute a default value",
                            url: url)
                        error.key = String(check.place.split(separator: ".").last ?? "")
                        throw error
                    }
                }
                let hasHistory = try tableExists("Z_HISTORY_CHANGE", on: connection)
                let keys = plan.keyPlan(ceilings: ceilings)
                for statement in plan.statements(keys: keys, hasHistory: hasHistory) {
                    try connection.execute(statement)
                }
                // A kept table keeps its indexes: drop those the destination model no longer has.
                let wanted = Set(plan.destination.indexStatements.compactMap(SQLiteSchema.indexName))
                for table in plan.keptTables(keys: keys) {
                    var stale: [String] = []
                    try connection.makeStatement(MigrationStatements.indexesOfTable).forEachRow([.text(table)]) { row in
                        if let name = row.text(at: 0), !wanted.contains(name) { stale.append(name) }
                    }
                    for name in stale { try connection.execute("DROP INDEX \"\(name.replacingOccurrences(of: "\"", with: "\"\""))\"") }
                }
                metadata.merge(destinationModel.versionMetadata) { _, new in new }
                try writeMetadata(metadata, on: connection)
                var changes: [MigrationReport.EntityChange] = []
                for entityMapping in mapping.entityMappings {
                    let source = entityMapping.sourceEntityName.flatMap { sourceModel.entitiesByName[$0] }
                    let destination = entityMapping.destinationEntityName.flatMap { destinationModel.entitiesByName[$0] }
                    var after = 0
                    if let destination, let sql = MigrationStatements.rowCount(of: destination, in: plan.destination) { after = try count(sql, on: connection) }
                    changes.append(
                        MigrationReport.EntityChange(
                            mappingName: entityMapping.name, mappingType: entityMapping.mappingType, sourceEntityName: source?.name,
                            destinationEntityName: destination?.name,
                            propertyChanges: MigrationReport.EntityChange.propertyChanges(of: entityMapping, source: source, destination: destination),
                            rowCountBefore: source.flatMap { before[$0.name] } ?? 0, rowCountAfter: after))
                }
                return MigrationReport(
                    sourceVersionHash: sourceHash, destinationVersionHash: destinationModel.versionHash.hexString, isMigrationNeeded: true, entityChanges: changes)
            }
        } catch {
            connection.clearStatementCache()
            throw failure(error)
        }
    }

    private static func count(_ sql: String, on connection: SQLiteConnection) throws -> Int {
        var result = 0
        try connection.makeStatement(sql).forEachRow { result = Int($0.int64(at: 0)) }
        return result
    }

    // MARK: Source models

    /// The model the store was made with, among the versions of the bundle `model` was read
    /// from and the models of `PersistentStoreOption.migrationSourceModels`: the one whose
    /// model version hash is the store's. Throws 134080 (underlying 134100, then 134130,
    /// `NSMigrationMissingSourceModelError`) when none is.
    static func sourceModel(forStoreMetadata metadata: [String: any Sendable], destination model: ManagedObjectModel, options: [String: any Sendable], url: URL) throws
        -> ManagedObjectModel
    {
        let storeHash = metadata[StoreMetadataKey.modelVersionHash] as? String ?? ""
        let given = options[PersistentStoreOption.migrationSourceModels] as? [ManagedObjectModel] ?? []
        if let match = given.first(where: { $0.versionHash.hexString == storeHash }) { return match }
        if let match = model.modelFileVersions().first(where: { $0.versionHash.hexString == storeHash }) { return match }
        // The incompatibility itself, with the entities that differ, as opening without migration says it.
        var detail = ""
        do { try checkCompatibility(metadata, model: model, url: url) } catch let error as StrataError { detail = " " + error.message }
        var error = StrataError(
            code: StrataError.Code.persistentStoreOpen,
            message:
                "No source model was found to migrate the store from: none of the \(model.modelFileVersionURLs.count) version(s) of the model's bundle and \(given.count) model(s) of PersistentStoreOption.migrationSourceModels has the store's version hash.\(detail)",
            url: url)
        error.underlyingErrors = [
            StrataError(code: StrataError.Code.persistentStoreIncompatibleVersionHash, message: "Version hashes differ", url: url),
            StrataError(code: StrataError.Code.migrationMissingSourceModel, message: "No model matches the store's version hash", url: url),
        ]
        throw error
    }

    /// Before the schema is prepared: when the store's version hashes differ from the model's
    /// and `options` ask for automatic, inferred migration, finds the source model, infers the
    /// mapping and migrates in place. Does nothing for a new store, a matching one, or when the
    /// options do not ask (opening then fails as an incompatible store). A read-only store, or
    /// one that keeps a persistent history opened without tracking (read-only too), is never
    /// migrated: a clear error.
    static func migrateIfNeeded(on connection: SQLiteConnection, model: ManagedObjectModel, url: URL, options: [String: any Sendable], readOnly: Bool) throws {
        let migrates = options[PersistentStoreOption.migratePersistentStoresAutomatically] as? Bool ?? false
        let infers = options[PersistentStoreOption.inferMappingModelAutomatically] as? Bool ?? false
        guard migrates, infers, try tableExists(MetadataStatements.metadataTable, on: connection) else { return }
        let metadata = try readMetadata(on: connection, url: url)
        guard (metadata[StoreMetadataKey.modelVersionHash] as? String ?? "") != model.versionHash.hexString else { return }
        if readOnly {
            throw StrataError(
                code: StrataError.Code.persistentStoreOpen,
                message: "The store was made with another version of the model and was opened read-only: a read-only store is never migrated (open it writable to migrate it)",
                url: url)
        }
        if !options.tracksPersistentHistory, try tableExists(HistoryStatements.transactionTable, on: connection) {
            throw StrataError(
                code: StrataError.Code.persistentStoreOpen,
                message:
                    "The store was made with another version of the model and keeps a persistent history, but was opened without PersistentStoreOption.persistentHistoryTracking: such a store is read-only and is never migrated (open it with tracking on to migrate it)",
                url: url)
        }
        let source = try sourceModel(forStoreMetadata: metadata, destination: model, options: options, url: url)
        let mapping: MappingModel
        do {
            mapping = try MappingModel.inferredMappingModel(forSourceModel: source, destinationModel: model)
        } catch {
            var wrapped = StrataError(
                code: StrataError.Code.migrationMissingMappingModel, message: "No mapping model could be inferred to migrate the store: \(error)", url: url)
            wrapped.underlyingErrors = [StrataError.wrapping(error, while: "Inferring the mapping model", url: url)]
            throw wrapped
        }
        _ = try migrateInPlace(on: connection, url: url, from: source, to: model, mapping: mapping)
    }

    // MARK: Dry run

    /// Migrates a copy of the store at `url` (made with `VACUUM INTO` in a temporary folder,
    /// so the WAL's committed pages are in it) to `model` and reports what changed; the copy is
    /// deleted and the original left untouched.
    static func dryRunMigration(at url: URL, options: [String: any Sendable], to model: ManagedObjectModel) throws -> MigrationReport {
        let metadata = try metadataOfStore(at: url)
        let storeHash = metadata[StoreMetadataKey.modelVersionHash] as? String ?? ""
        if storeHash == model.versionHash.hexString {
            return MigrationReport(sourceVersionHash: storeHash, destinationVersionHash: storeHash, isMigrationNeeded: false, entityChanges: [])
        }
        let source = try sourceModel(forStoreMetadata: metadata, destination: model, options: options, url: url)
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: source, destinationModel: model)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-dry-run-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent(url.lastPathComponent)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var configuration = SQLiteConfiguration()
            configuration.readOnly = true
            let original = try SQLiteConnection(path: url.path, configuration: configuration)
            try original.execute("VACUUM INTO '\(copy.path.replacingOccurrences(of: "'", with: "''"))'")
        } catch {
            throw StrataError.wrapping(error, while: "Copying the store for a dry run", url: url, defaultCode: StrataError.Code.persistentStoreOperation)
        }
        return try migrateInPlace(at: copy, from: source, to: model, mapping: mapping)
    }
}
