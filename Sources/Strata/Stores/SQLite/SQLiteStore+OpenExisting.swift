import Foundation
import StrataSQLite

/// Opening an existing store without the write lock.
extension SQLiteStore {
    /// The metadata of an existing store made with this model whose indexes all exist, read
    /// without writing; nil when the store is new or lacks an index (the caller then prepares
    /// the schema in a write transaction). Throws for an incompatible or damaged store.
    static func completeStoreMetadata(on connection: SQLiteConnection, schema: SQLiteSchema, model: ManagedObjectModel, url: URL) throws -> [String: any Sendable]? {
        guard try tableExists(MetadataStatements.metadataTable, on: connection) else { return nil }
        let metadata = try readMetadata(on: connection, url: url)
        try checkCompatibility(metadata, model: model, url: url)
        var existing = Set<String>()
        try connection.cachedStatement(MetadataStatements.indexNames).forEachRow { row in
            if let name = row.text(at: 0) { existing.insert(name) }
        }
        for statement in schema.indexStatements {
            guard let name = SQLiteSchema.indexName(in: statement), existing.contains(name) else { return nil }
        }
        return metadata
    }
}
