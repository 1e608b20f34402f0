import Foundation
import Strata
import StrataLocks
import StrataTestSupport
import Testing

/// A store of the public seam reports what other processes or servers committed
/// (`IncrementalStore.noteChangesMadeElsewhere`), and the coordinator treats it as Core Data
/// treats another coordinator's save: root contexts with `automaticallyMergesChangesFromParent`
/// merge it, and `.persistentStoreRemoteChange` is posted when asked for. `DictionaryStore`
/// plays the other process by overwriting its own rows.
@Suite("Changes made elsewhere")
struct ChangesMadeElsewhereTests {
    static func stack(reports: Bool, postsRemoteChanges: Bool = false) throws -> (PersistentStoreCoordinator, DictionaryStore) {
        PersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: DictionaryStore.storeType)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: StoreConformanceTests.peopleModel())
        var options: [String: any Sendable] = [DictionaryStore.reportsChangesOption: reports]
        if postsRemoteChanges { options[PersistentStoreOption.remoteChangeNotificationPost] = true }
        let store = try coordinator.addPersistentStore(type: DictionaryStore.storeType, options: options)
        return (coordinator, try #require(store.incrementalStore as? DictionaryStore))
    }

    /// Waits (at most `seconds`) until `condition`, read on `context`'s queue, holds.
    static func eventually(_ context: ManagedObjectContext, within seconds: Double = 2, _ condition: @escaping () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if context.performAndWait(condition) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    // Core Data: a context with `automaticallyMergesChangesFromParent` merges saves other
    // coordinators committed once it hears of them; its registered objects show the new values
    // and objects deleted there become deleted here.
    @Test("a merging root context shows updates and deletions made elsewhere")
    func mergingContextSeesChanges() throws {
        let (coordinator, store) = try Self.stack(reports: true)
        let viewer = StoreConformanceTests.context(coordinator)
        viewer.automaticallyMergesChangesFromParent = true
        try StoreConformanceTests.seedPeople(StoreConformanceTests.context(coordinator), model: coordinator.managedObjectModel)
        let (first, second) = try viewer.performAndWait { () throws -> (ManagedObject, ManagedObject) in
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortDescriptors = [ObjectSortDescriptor(key: "age")]
            let people = try viewer.fetch(request)
            #expect(people[0].value(forKey: "name") as? String == "p0")
            return (people[0], people[1])
        }
        let firstID = viewer.performAndWait { first.objectID }
        let secondID = viewer.performAndWait { second.objectID }
        let version = try #require(try store.overwriteRowElsewhere(firstID, values: ["name": "renamed elsewhere"]))
        store.noteChangesMadeElsewhere(inserted: [], updated: [firstID: version], deleted: [secondID])
        #expect(Self.eventually(viewer) { first.value(forKey: "name") as? String == "renamed elsewhere" && second.isDeleted })
    }

    // Core Data merges only into contexts that ask for it; a context that does not still reads
    // the store's new row after `refresh`, because the coordinator dropped the cached one.
    @Test("a context that does not merge keeps its values until it refreshes, then reads the new row")
    func nonMergingContextRefreshes() throws {
        let (coordinator, store) = try Self.stack(reports: true)
        let reader = StoreConformanceTests.context(coordinator)
        try StoreConformanceTests.seedPeople(StoreConformanceTests.context(coordinator), model: coordinator.managedObjectModel)
        let person = try reader.performAndWait { () throws -> ManagedObject in
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = ObjectPredicate(format: "name == %@", "p3")
            return try #require(try reader.fetch(request).first)
        }
        let id = reader.performAndWait { person.objectID }
        let version = try #require(try store.overwriteRowElsewhere(id, values: ["age": Int64(99)]))
        store.noteChangesMadeElsewhere(inserted: [], updated: [id: version], deleted: [])
        Thread.sleep(forTimeInterval: 0.1)
        reader.performAndWait {
            #expect(person.value(forKey: "age") as? Int64 == 23)
            reader.refresh(person, mergeChanges: false)
            #expect(person.value(forKey: "age") as? Int64 == 99)
        }
    }

    // Core Data posts `NSPersistentStoreRemoteChange` for changes other processes made when the
    // store was added with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`; a store that
    // cannot report them refuses the option.
    @Test("the remote-change notification is posted for a store that reports changes, refused for one that cannot")
    func remoteChangeNotification() throws {
        #expect(throws: StrataError.self) { _ = try Self.stack(reports: false, postsRemoteChanges: true) }
        let (coordinator, store) = try Self.stack(reports: true, postsRemoteChanges: true)
        try StoreConformanceTests.seedPeople(StoreConformanceTests.context(coordinator), model: coordinator.managedObjectModel)
        let received = StrataLock<[String]>([])
        let observer = NotificationCenter.default.addObserver(forName: .persistentStoreRemoteChange, object: coordinator, queue: nil) { note in
            let uuid = note.userInfo?[PersistentStoreCoordinator.RemoteChangeKey.storeUUID] as? String ?? "?"
            received.withLock { $0.append(uuid) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let context = StoreConformanceTests.context(coordinator)
        let id = try context.performAndWait { () throws -> ManagedObjectID in
            try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Team")).first).objectID
        }
        let version = try #require(try store.overwriteRowElsewhere(id, values: ["name": "green"]))
        store.noteChangesMadeElsewhere(inserted: [], updated: [id: version], deleted: [])
        #expect(received.withLock { $0 } == [store.identifier])
    }
}
