import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// What opening a SQLite store reads and checks. Core Data's `addPersistentStore` reads the
/// store's metadata every time (`metadataForPersistentStore(ofType:at:)` returns what was last
/// saved with `setMetadata`), and refuses a store whose recorded entity version hashes differ
/// from the model's; a model's version hashes never change once a coordinator uses it (the model
/// is immutable from then on). Strata keeps the frozen model's hashes and the metadata decoded
/// from the same bytes, so these tests check that neither keeps a stale answer.
@Suite("Opening a SQLite store")
struct StoreOpeningTests {
    @Test("metadata set before a reopen is read after it, each time it changes, and a store of another model is still refused")
    func metadataChangesAreSeen() throws {
        let stack = try TestStack(model: ModelFixtures.people())
        for round in 0..<3 {
            let store = try #require(stack.coordinator.persistentStores.first)
            var metadata = stack.coordinator.metadata(for: store)
            metadata["round"] = "\(round)"
            try stack.coordinator.setMetadata(metadata, for: store)
            try stack.reopen()
            let reopened = try #require(stack.coordinator.persistentStores.first)
            #expect(stack.coordinator.metadata(for: reopened)["round"] as? String == "\(round)")
            #expect(try PersistentStoreCoordinator.metadataForPersistentStore(at: stack.storeURL)["round"] as? String == "\(round)")
        }
        // Another model (one more attribute) against the same bytes: refused, with 134080.
        let other = ModelFixtures.people()
        other.entitiesByName["Person"]?.properties.append(AttributeDescription(name: "nickname", type: .string))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: other)
        let error = try #require(throws: StrataError.self) { try coordinator.addPersistentStore(type: .sqlite, at: stack.storeURL) }
        #expect(error.code == StrataError.Code.persistentStoreOpen)
    }

    @Test("a model's version hashes are the same before and after a coordinator freezes it")
    func frozenModelKeepsItsHashes() throws {
        let model = ModelFixtures.people()
        let hash = model.versionHash
        let entityHashes = model.entityVersionHashesByName
        #expect(!model.isFrozen)
        let stack = try TestStack(model: model)
        #expect(model.isFrozen)
        #expect(model.versionHash == hash)
        #expect(model.entityVersionHashesByName == entityHashes)
        #expect(model.versionChecksum == hash.base64EncodedString())
        let store = try #require(stack.coordinator.persistentStores.first)
        #expect(stack.coordinator.metadata(for: store)[StoreMetadataKey.modelVersionHash] as? String == hash.hexString)
    }

    @Test("hexadecimal rendering: two lower-case digits a byte, as String(format: \"%02x\") writes them")
    func hexString() {
        let bytes = Data((0...255).map { UInt8($0) })
        #expect(bytes.hexString == bytes.map { String(format: "%02x", $0) }.joined())
        #expect(Data().hexString == "")
    }

    @Test("the decoded-metadata cache keeps at most its capacity and answers only for equal bytes")
    func metadataCacheBounds() throws {
        let cache = SQLiteMetadataCache()
        var decodes = 0
        for index in 0..<(SQLiteMetadataCache.capacity + 3) {
            let value = cache.metadata(decodedFrom: Data("bytes \(index)".utf8)) {
                decodes += 1
                return ["index": index]
            }
            #expect(value["index"] as? Int == index)
        }
        #expect(cache.count == SQLiteMetadataCache.capacity)
        let last = SQLiteMetadataCache.capacity + 2
        let kept = cache.metadata(decodedFrom: Data("bytes \(last)".utf8)) {
            decodes += 1
            return [:]
        }
        #expect(kept["index"] as? Int == last)
        #expect(decodes == SQLiteMetadataCache.capacity + 3)
        // The oldest entry went: its bytes are decoded again.
        _ = cache.metadata(decodedFrom: Data("bytes 0".utf8)) {
            decodes += 1
            return [:]
        }
        #expect(decodes == SQLiteMetadataCache.capacity + 4)
        // Metadata holding a Data value is decoded each time, never kept.
        let before = cache.count
        for _ in 0..<2 {
            let value = cache.metadata(decodedFrom: Data("with data".utf8)) {
                decodes += 1
                return ["nested": ["blob": Data([1, 2, 3])] as [String: any Sendable]]
            }
            #expect((value["nested"] as? [String: any Sendable])?["blob"] as? Data == Data([1, 2, 3]))
        }
        #expect(decodes == SQLiteMetadataCache.capacity + 6)
        #expect(cache.count == before)
    }
}
