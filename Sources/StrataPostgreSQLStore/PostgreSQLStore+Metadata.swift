import Foundation
import Strata
import StrataPostgreSQL

extension PostgreSQLStore {
    /// Connects, creates the schema when the namespace holds no store yet, and returns the
    /// store's metadata. Called once by the coordinator, on the thread adding the store.
    ///
    /// Creation runs in one transaction under `pg_advisory_xact_lock` on the namespace's name,
    /// so two processes opening a new store at once create it once (the second waits, then
    /// finds it). A new store's metadata holds a new ``StoreMetadataKey/storeUUID``, the type
    /// `"PostgreSQL"` and the model's version hashes as the SQLite store writes them; an existing
    /// store whose hashes differ from the model's is refused with 134080 wrapping 134100, as on
    /// SQLite, and nothing is changed. A failure to connect (refused, wrong password, no such
    /// database) is 134080 carrying the SQLSTATE and the server's message, never the password.
    func openStore() throws -> [String: any Sendable] {
        try withConnection("Opening the PostgreSQL store", code: StrataError.Code.persistentStoreOpen) { connection in
            try connection.transaction(isolation: .readCommitted) {
                try connection.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", parameters: [.text("strata-store:" + schema.namespace)])
                if let metadata = try readMetadata(on: connection) {
                    try checkCompatibility(metadata)
                    try prepareHistory(on: connection)
                    return metadata
                }
                if isReadOnly {
                    throw StrataError(
                        code: StrataError.Code.persistentStoreOpen,
                        message: "The PostgreSQL namespace '\(schema.namespace)' holds no store, and a read-only store cannot create one", url: redactedURL)
                }
                for statement in try schema.creationStatements(model: model, configurationName: configurationName) {
                    try connection.execute(statement)
                }
                var metadata = model.versionMetadata
                metadata[StoreMetadataKey.storeUUID] = UUID().uuidString
                metadata[StoreMetadataKey.storeType] = Self.typeName
                try write(metadata, on: connection)
                try prepareHistory(on: connection)
                return metadata
            }
        }
    }

    /// Replaces the stored metadata with `metadata` in one transaction. Values must be
    /// property-list-like (see ``PostgreSQLMetadataCoding``); any other value is refused with
    /// 134070 and nothing is written. Callable from any thread.
    func storeMetadata(_ metadata: [String: any Sendable]) throws {
        // Encode first, so a refused value writes nothing.
        let encoded = try metadata.map { (key: $0.key, text: try PostgreSQLMetadataCoding.encode($0.value, key: $0.key)) }
        try withConnection("Writing the PostgreSQL store's metadata") { connection in
            try connection.transaction(isolation: .readCommitted) {
                try connection.execute("DELETE FROM \(schema.metadataTable)")
                for entry in encoded {
                    try connection.execute("INSERT INTO \(schema.metadataTable) (key, value) VALUES ($1, $2)", parameters: [.text(entry.key), .text(entry.text)])
                }
            }
        }
    }

    /// The stored metadata, or `nil` when the namespace holds no store (no metadata table).
    /// Runs on the thread holding `connection`.
    func readMetadata(on connection: PostgreSQLConnection) throws -> [String: any Sendable]? {
        let exists = try connection.execute("SELECT to_regclass($1) IS NOT NULL", parameters: [.text(schema.metadataTable)])
        guard try exists.first?.bool(0) == true else { return nil }
        var metadata: [String: any Sendable] = [:]
        for row in try connection.execute("SELECT key, value FROM \(schema.metadataTable)") {
            guard let key = try row.string(0), let text = try row.string(1), let value = PostgreSQLMetadataCoding.decode(text) else { continue }
            metadata[key] = value
        }
        guard metadata[StoreMetadataKey.storeUUID] is String else {
            throw StrataError(
                code: StrataError.Code.persistentStoreOpen, message: "The PostgreSQL store's metadata in namespace '\(schema.namespace)' is damaged: it has no store UUID",
                url: redactedURL)
        }
        return metadata
    }

    /// Writes `metadata` into the (empty) metadata table. Runs on the thread holding `connection`.
    private func write(_ metadata: [String: any Sendable], on connection: PostgreSQLConnection) throws {
        for (key, value) in metadata {
            try connection.execute(
                "INSERT INTO \(schema.metadataTable) (key, value) VALUES ($1, $2)", parameters: [.text(key), .text(try PostgreSQLMetadataCoding.encode(value, key: key))])
        }
    }

    /// Compares the store's recorded version hashes with the model's, as the SQLite store does:
    /// a mismatch is 134080 naming the entities that differ, with an underlying 134100. Pure;
    /// callable from any thread.
    func checkCompatibility(_ metadata: [String: any Sendable]) throws {
        try model.checkCompatibility(withStoreMetadata: metadata, storeName: "PostgreSQL store", remedy: "Open it with its own model.", url: redactedURL)
    }
}
