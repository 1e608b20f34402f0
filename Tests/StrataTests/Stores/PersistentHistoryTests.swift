import Foundation
import Strata
import StrataLocks
import StrataTestSupport
import Testing

/// Persistent history (issue #14, item 6) on every store (PostgreSQL too, issue #18). Core Data's facts come from Apple's
/// documentation pages "Persistent history", NSPersistentHistoryChangeRequest,
/// NSPersistentHistoryTransaction, NSPersistentHistoryChange, NSPersistentHistoryToken,
/// NSPersistentHistoryResultType, NSPersistentHistoryTrackingKey,
/// NSPersistentStoreRemoteChangeNotificationPostOptionKey and
/// NSAttributeDescription.preservesValueInHistoryOnDeletion, and from the sample "Consuming
/// relevant store changes" and WWDC 2017 "What's New in Core Data" (history tokens, authors,
/// tombstones, purging).
@Suite("Persistent history")
struct PersistentHistoryTests {
    /// Note (title, body; `title` keeps its value in history on deletion) → Folder (to-one).
    static func model() -> ManagedObjectModel {
        let folder = EntityDescription(name: "Folder")
        let note = EntityDescription(name: "Note")
        let title = AttributeDescription(name: "title", type: .string)
        title.preservesValueInHistoryOnDeletion = true
        let rank = AttributeDescription(name: "rank", type: .integer32, isOptional: false, defaultValue: Int32(0))
        rank.preservesValueInHistoryOnDeletion = true
        folder.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "notes", destination: note, inverse: "folder", toMany: true),
        ]
        note.properties = [title, rank, AttributeDescription(name: "body", type: .string), RelationshipDescription(name: "folder", destination: folder, inverse: "notes")]
        return ManagedObjectModel(entities: [folder, note])
    }

    static let tracking: [String: any Sendable] = [PersistentStoreOption.persistentHistoryTracking: true]

    static func stack(_ kind: TestStack.Kind, posting: Bool = false) throws -> TestStack {
        var options = tracking
        if posting { options[PersistentStoreOption.remoteChangeNotificationPost] = true }
        return try TestStack(model: model(), kind: kind, options: options)
    }

    /// Inserts notes with the given titles in one save by a context with `author`.
    @discardableResult
    static func insertNotes(_ titles: [String], in stack: TestStack, author: String? = nil, name: String? = nil) throws -> [ManagedObjectID] {
        let context = stack.newContext(name: name)
        context.transactionAuthor = author
        return try context.performAndWait {
            let notes = titles.map { title -> ManagedObject in
                let note = ManagedObject(entity: stack.model.entitiesByName["Note"]!, insertInto: context)
                note.setValue(title, forKey: "title")
                return note
            }
            try context.save()
            return notes.map(\.objectID)
        }
    }

    static func transactions(_ request: PersistentHistoryChangeRequest, in stack: TestStack) throws -> [PersistentHistoryTransaction] {
        let context = stack.newContext()
        return try context.performAndWait {
            let result = try #require(try context.execute(request) as? PersistentHistoryResult)
            return try #require(result.result as? [PersistentHistoryTransaction])
        }
    }

    @Test("a root save records one transaction: author, context name, inserts, updated properties, deletes with tombstones", arguments: TestStack.Kind.keepingHistory)
    func recordsSaves(kind: TestStack.Kind) throws {
        let stack = try Self.stack(kind)
        let before = Date()
        let ids = try Self.insertNotes(["a", "b"], in: stack, author: "importer", name: "import context")
        let editor = stack.newContext(name: "editor")
        editor.transactionAuthor = "app"
        try editor.performAndWait {
            let notes = try editor.fetch(FetchRequest<ManagedObject>(entityName: "Note")).sorted { ($0.value(forKey: "title") as? String ?? "") < ($1.value(forKey: "title") as? String ?? "") }
            notes[0].setValue("a2", forKey: "body")
            notes[0].setValue(Int32(7), forKey: "rank")
            notes[1].setValue(Int32(9), forKey: "rank")
            try editor.save()
            editor.delete(notes[1])
            try editor.save()
        }
        let all = try Self.transactions(.fetchHistory(after: nil), in: stack)
        try #require(all.count == 3)
        let (insert, update, delete) = (all[0], all[1], all[2])
        #expect(insert.author == "importer" && insert.contextName == "import context")
        #expect(update.author == "app" && update.contextName == "editor")
        #expect(all.map(\.transactionNumber) == all.map(\.transactionNumber).sorted() && Set(all.map(\.transactionNumber)).count == 3)
        #expect(all.allSatisfy { $0.storeID == stack.coordinator.persistentStores[0].identifier })
        #expect(insert.timestamp >= before.addingTimeInterval(-1) && delete.timestamp <= Date().addingTimeInterval(1))
        #expect(insert.changes?.map(\.changeType) == [.insert, .insert])
        #expect(Set(insert.changes?.map(\.changedObjectID) ?? []) == Set(ids))
        #expect(insert.changes?.allSatisfy { $0.updatedProperties == nil && $0.tombstone == nil } == true)
        let updates = try #require(update.changes)
        #expect(updates.count == 2 && updates.allSatisfy { $0.changeType == .update })
        let first = try #require(updates.first { $0.changedObjectID == ids[0] })
        #expect(Set(first.updatedProperties?.map(\.name) ?? []) == ["body", "rank"])
        let deletion = try #require(delete.changes?.first)
        #expect(delete.changes?.count == 1 && deletion.changeType == .delete && deletion.changedObjectID == ids[1])
        #expect(deletion.tombstone?["title"] as? String == "b")
        #expect(deletion.tombstone?["rank"] as? Int32 == 9)
        #expect(deletion.tombstone?["body"] == nil)  // not marked preservesValueInHistoryOnDeletion
        let changeIDs = all.flatMap { $0.changes ?? [] }.map(\.changeID)
        #expect(changeIDs == changeIDs.sorted() && Set(changeIDs).count == changeIDs.count)
    }

    @Test("relationship changes name the relationship in updatedProperties, on both sides", arguments: TestStack.Kind.keepingHistory)
    func relationshipUpdates(kind: TestStack.Kind) throws {
        let stack = try Self.stack(kind)
        let ids = try Self.insertNotes(["a"], in: stack)
        let context = stack.newContext()
        let folderID = try context.performAndWait {
            let folder = ManagedObject(entity: stack.model.entitiesByName["Folder"]!, insertInto: context)
            try context.save()
            return folder.objectID
        }
        let token = stack.coordinator.currentPersistentHistoryToken()
        try context.performAndWait {
            let folder = try context.existingObject(with: folderID)
            try context.existingObject(with: ids[0]).setValue(folder, forKey: "folder")
            try context.save()
        }
        let transaction = try #require(try Self.transactions(.fetchHistory(after: token), in: stack).first)
        let changes = try #require(transaction.changes)
        let noteChange = changes.first { $0.changedObjectID == ids[0] }
        let folderChange = changes.first { $0.changedObjectID == folderID }
        #expect(noteChange?.changeType == .update && noteChange?.updatedProperties?.map(\.name) == ["folder"])
        #expect(folderChange?.changeType == .update && folderChange?.updatedProperties?.map(\.name) == ["notes"])
    }

    @Test("one save mixing inserts, updates of two shapes and deletes records each change with its own fields", arguments: TestStack.Kind.keepingHistory)
    func mixedSave(kind: TestStack.Kind) throws {
        let stack = try Self.stack(kind)
        let ids = try Self.insertNotes(["a", "b", "c", "d"], in: stack)
        let token = stack.coordinator.currentPersistentHistoryToken()
        let context = stack.newContext()
        let inserted = try context.performAndWait {
            try context.existingObject(with: ids[0]).setValue("x", forKey: "body")
            try context.existingObject(with: ids[1]).setValue(Int32(3), forKey: "rank")
            try context.existingObject(with: ids[2]).setValue("y", forKey: "body")
            context.delete(try context.existingObject(with: ids[3]))
            let note = ManagedObject(entity: stack.model.entitiesByName["Note"]!, insertInto: context)
            note.setValue("e", forKey: "title")
            try context.save()
            return note.objectID
        }
        let changes = try #require(try Self.transactions(.fetchHistory(after: token), in: stack).first?.changes)
        func change(_ id: ManagedObjectID) -> PersistentHistoryChange? { changes.first { $0.changedObjectID == id } }
        #expect(changes.count == 5)
        #expect(change(inserted)?.changeType == .insert && change(inserted)?.updatedProperties == nil && change(inserted)?.tombstone == nil)
        #expect(change(ids[0])?.updatedProperties?.map(\.name) == ["body"] && change(ids[0])?.tombstone == nil)
        #expect(change(ids[1])?.updatedProperties?.map(\.name) == ["rank"])
        #expect(change(ids[2])?.updatedProperties?.map(\.name) == ["body"])
        #expect(change(ids[3])?.changeType == .delete && change(ids[3])?.updatedProperties == nil && change(ids[3])?.tombstone?["title"] as? String == "d")
    }

    /// The SQLite store writes a transaction's change rows 32 to a statement and the rest one by
    /// one, reusing the columns and tombstone bound to each row of the statement while they stay
    /// the same: every change must still come back with its own fields, once, in order.
    @Test("a save of many changes of mixed shapes records each once, with its own fields, in order", arguments: TestStack.Kind.keepingHistory)
    func manyChanges(kind: TestStack.Kind) throws {
        let stack = try Self.stack(kind)
        let ids = try Self.insertNotes((0..<75).map { "note \($0)" }, in: stack)
        let inserts = try #require(try Self.transactions(.fetchHistory(after: nil), in: stack).first?.changes)
        #expect(inserts.count == 75 && Set(inserts.map(\.changedObjectID)) == Set(ids) && inserts.allSatisfy { $0.changeType == .insert && $0.updatedProperties == nil })
        let token = stack.coordinator.currentPersistentHistoryToken()
        let context = stack.newContext()
        let inserted = try context.performAndWait {
            for index in 0..<40 {
                let note = try context.existingObject(with: ids[index])
                // Runs of shapes: body, body, rank, body+rank, body, body, rank, …
                switch index % 4 {
                case 0, 1: note.setValue("body \(index)", forKey: "body")
                case 2: note.setValue(Int32(index), forKey: "rank")
                default:
                    note.setValue("body \(index)", forKey: "body")
                    note.setValue(Int32(index), forKey: "rank")
                }
            }
            for index in 40..<60 { context.delete(try context.existingObject(with: ids[index])) }
            let notes = (0..<5).map { index -> ManagedObject in
                let note = ManagedObject(entity: stack.model.entitiesByName["Note"]!, insertInto: context)
                note.setValue("new \(index)", forKey: "title")
                return note
            }
            try context.save()
            return notes.map(\.objectID)
        }
        let changes = try #require(try Self.transactions(.fetchHistory(after: token), in: stack).first?.changes)
        #expect(changes.count == 65)
        #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.changeID < $1.changeID })
        #expect(Set(changes.map(\.changedObjectID)).count == 65)
        for change in changes {
            if let index = ids.firstIndex(of: change.changedObjectID), index < 40 {
                let expected: Set<String> = index % 4 < 2 ? ["body"] : index % 4 == 2 ? ["rank"] : ["body", "rank"]
                #expect(change.changeType == .update && Set(change.updatedProperties?.map(\.name) ?? []) == expected && change.tombstone == nil, "note \(index)")
            } else if let index = ids.firstIndex(of: change.changedObjectID) {
                #expect(change.changeType == .delete && change.updatedProperties == nil, "note \(index)")
                #expect(change.tombstone?["title"] as? String == "note \(index)", "note \(index)")
            } else {
                #expect(inserted.contains(change.changedObjectID) && change.changeType == .insert && change.tombstone == nil)
            }
        }
    }

    @Test("a child's save into its parent records nothing; the root's save records the root's author", arguments: TestStack.Kind.keepingHistory)
    func childSavesRecordNothing(kind: TestStack.Kind) throws {
        let stack = try Self.stack(kind)
        let root = stack.newContext(name: "root")
        root.transactionAuthor = "root author"
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = root
        child.transactionAuthor = "child author"
        try child.performAndWait {
            ManagedObject(entity: stack.model.entitiesByName["Note"]!, insertInto: child).setValue("x", forKey: "title")
            try child.save()
        }
        #expect(try Self.transactions(.fetchHistory(after: nil), in: stack).isEmpty)
        try root.performAndWait { try root.save() }
        let all = try Self.transactions(.fetchHistory(after: nil), in: stack)
        #expect(all.count == 1 && all.first?.author == "root author" && all.first?.contextName == "root")
    }

    @Test("tokens: fetch after a token returns only later transactions, in order; Codable; the current token", arguments: TestStack.Kind.keepingHistory)
    func tokens(kind: TestStack.Kind) throws {
        let stack = try Self.stack(kind)
        try Self.insertNotes(["a"], in: stack)
        let first = try #require(Self.transactions(.fetchHistory(after: nil), in: stack).last)
        #expect(stack.coordinator.currentPersistentHistoryToken(fromStores: nil) == first.token)
        try Self.insertNotes(["b"], in: stack, author: "second")
        try Self.insertNotes(["c"], in: stack, author: "third")
        let data = try JSONEncoder().encode(first.token)
        let decoded = try JSONDecoder().decode(PersistentHistoryToken.self, from: data)
        #expect(decoded == first.token)
        let later = try Self.transactions(.fetchHistory(after: decoded), in: stack)
        #expect(later.map(\.author) == ["second", "third"])
        #expect(try Self.transactions(.fetchHistory(after: try #require(later.last)), in: stack).isEmpty)
        #expect(stack.coordinator.currentPersistentHistoryToken(fromStores: nil) == later.last?.token)
    }

    @Test("a token kept across a restart still marks the same place (SQLite)")
    func tokenSurvivesReopen() throws {
        let stack = try Self.stack(.sqlite)
        try Self.insertNotes(["a"], in: stack, author: "before")
        let saved = try JSONEncoder().encode(try #require(stack.coordinator.currentPersistentHistoryToken()))
        try stack.reopen()
        try Self.insertNotes(["b"], in: stack, author: "after")
        let token = try JSONDecoder().decode(PersistentHistoryToken.self, from: saved)
        #expect(try Self.transactions(.fetchHistory(after: token), in: stack).map(\.author) == ["after"])
        #expect(try Self.transactions(.fetchHistory(after: nil), in: stack).map(\.author) == ["before", "after"])
    }

    @Test("a save spanning two stores records history, with the same author, in each store that tracks it")
    func severalStores() throws {
        let model = Self.model()
        let folder = try #require(model.entitiesByName["Folder"])
        let note = try #require(model.entitiesByName["Note"])
        model.setEntities([folder], forConfigurationName: "Folders")
        model.setEntities([note], forConfigurationName: "Notes")
        let directory = TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let folders = try coordinator.addPersistentStore(type: .sqlite, configuration: "Folders", at: directory.file("folders.sqlite"), options: Self.tracking)
        let notes = try coordinator.addPersistentStore(type: .inMemory, configuration: "Notes", options: Self.tracking)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = "both"
        try context.performAndWait {
            ManagedObject(entity: folder, insertInto: context).setValue("inbox", forKey: "name")
            ManagedObject(entity: note, insertInto: context).setValue("hello", forKey: "title")
            try context.save()
        }
        let token = try #require(coordinator.currentPersistentHistoryToken())
        #expect(Set(token.storeIdentifiers) == [folders.identifier, notes.identifier])
        let all = try context.performAndWait {
            let result = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil)) as? PersistentHistoryResult
            return result?.result as? [PersistentHistoryTransaction] ?? []
        }
        #expect(all.count == 2 && all.allSatisfy { $0.author == "both" && $0.changes?.count == 1 })
        #expect(Set(all.map(\.storeID)) == [folders.identifier, notes.identifier])
        let onlyFolders = PersistentHistoryChangeRequest.fetchHistory(after: nil)
        onlyFolders.affectedStores = [folders.incrementalStore]
        let filtered = try context.performAndWait { (try context.execute(onlyFolders) as? PersistentHistoryResult)?.result as? [PersistentHistoryTransaction] }
        #expect(filtered?.map(\.storeID) == [folders.identifier])
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }

    @Test("a store with history opened without tracking is read-only, as in Core Data; with tracking again it records on (SQLite)")
    func untrackedHistoryIsReadOnly() throws {
        let stack = try Self.stack(.sqlite)
        try Self.insertNotes(["a"], in: stack, author: "tracked")
        let untracked = try TestStack(model: Self.model(), kind: .sqlite)  // a file of its own: never had history
        try Self.insertNotes(["x"], in: untracked)  // a store without history stays writable
        let coordinator = PersistentStoreCoordinator(managedObjectModel: stack.model)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        try coordinator.addPersistentStore(type: .sqlite, at: stack.storeURL)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let (count, error) = context.performAndWait { () -> (Int, StrataError?) in
            let count = (try? context.count(for: FetchRequest<ManagedObject>(entityName: "Note"))) ?? -1
            ManagedObject(entity: stack.model.entitiesByName["Note"]!, insertInto: context).setValue("lost", forKey: "title")
            do {
                try context.save()
                return (count, nil)
            } catch {
                return (count, error as? StrataError)
            }
        }
        #expect(count == 1)  // reads work
        #expect(error?.message.contains("persistentHistoryTracking") == true)
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        try stack.reopen()
        try Self.insertNotes(["b"], in: stack, author: "tracked again")
        #expect(try Self.transactions(.fetchHistory(after: nil), in: stack).map(\.author) == ["tracked", "tracked again"])
    }

    @Test("fetch after a date; delete before a token and before a date; count, transactions only and status results", arguments: TestStack.Kind.keepingHistory)
    func datesDeletesAndResultTypes(kind: TestStack.Kind) throws {
        let stack = try Self.stack(kind)
        try Self.insertNotes(["a", "b"], in: stack, author: "one")
        Thread.sleep(forTimeInterval: 0.05)
        let middle = Date()
        Thread.sleep(forTimeInterval: 0.05)
        try Self.insertNotes(["c"], in: stack, author: "two")
        try Self.insertNotes(["d"], in: stack, author: "three")
        #expect(try Self.transactions(.fetchHistory(after: middle), in: stack).map(\.author) == ["two", "three"])
        let context = stack.newContext()
        try context.performAndWait {
            let count = PersistentHistoryChangeRequest.fetchHistory(after: nil)
            count.resultType = .count
            let counted = try context.execute(count) as? PersistentHistoryResult
            #expect(counted?.result as? Int == 4)  // changes, not transactions
            let only = PersistentHistoryChangeRequest.fetchHistory(after: middle)
            only.resultType = .transactionsOnly
            let onlyResult = try context.execute(only) as? PersistentHistoryResult
            let transactions = onlyResult?.result as? [PersistentHistoryTransaction]
            #expect(transactions?.count == 2 && transactions?.allSatisfy { $0.changes == nil } == true)
            let status = PersistentHistoryChangeRequest.fetchHistory(after: middle)
            status.resultType = .statusOnly
            let statusResult = try context.execute(status) as? PersistentHistoryResult
            #expect(statusResult?.result as? Bool == true)
        }
        // Delete before a date: the first transaction goes.
        try context.performAndWait { _ = try context.execute(PersistentHistoryChangeRequest.deleteHistory(before: middle)) }
        let left = try Self.transactions(.fetchHistory(after: nil), in: stack)
        #expect(left.map(\.author) == ["two", "three"])
        // Delete before a token: up to and including the transaction it stands for.
        try context.performAndWait {
            let delete = PersistentHistoryChangeRequest.deleteHistory(before: left[0].token)
            delete.resultType = .count
            let deleted = try context.execute(delete) as? PersistentHistoryResult
            #expect(deleted?.result as? Int == 1)
        }
        #expect(try Self.transactions(.fetchHistory(after: nil), in: stack).map(\.author) == ["three"])
        // Numbers are never reused after a purge.
        let last = try #require(left.last?.transactionNumber)
        try context.performAndWait { _ = try context.execute(PersistentHistoryChangeRequest.deleteHistory(before: nil)) }
        try Self.insertNotes(["e"], in: stack, author: "four")
        let after = try Self.transactions(.fetchHistory(after: nil), in: stack)
        #expect(after.map(\.author) == ["four"] && (after.first?.transactionNumber ?? 0) > last)
    }

    @Test("a batch update is one transaction with the executing context's author and the updated attributes", arguments: TestStack.Kind.keepingHistory)
    func batchUpdateHistory(kind: TestStack.Kind) throws {
        let stack = try Self.stack(kind)
        let ids = try Self.insertNotes(["a", "b", "c"], in: stack)
        let token = stack.coordinator.currentPersistentHistoryToken()
        let context = stack.newContext(name: "batch")
        context.transactionAuthor = "cleaner"
        try context.performAndWait {
            let update = BatchUpdateRequest(entityName: "Note")
            update.predicate = ObjectPredicate(format: "title != 'b'")
            update.propertiesToUpdate = ["body": "cleaned"]
            _ = try context.execute(update)
            let none = BatchUpdateRequest(entityName: "Note")
            none.predicate = ObjectPredicate(format: "title == 'zzz'")
            none.propertiesToUpdate = ["body": "never"]
            _ = try context.execute(none)  // no row: no transaction
        }
        let later = try Self.transactions(.fetchHistory(after: token), in: stack)
        try #require(later.count == 1)
        #expect(later[0].author == "cleaner" && later[0].contextName == "batch")
        let changes = try #require(later[0].changes)
        #expect(Set(changes.map(\.changedObjectID)) == [ids[0], ids[2]])
        #expect(changes.allSatisfy { $0.changeType == .update && $0.updatedProperties?.map(\.name) == ["body"] })
    }

    @Test("a batch delete is one transaction: a delete per row, an update per partner that lost one, the executing context's author", arguments: TestStack.Kind.keepingHistory)
    func batchDeleteHistory(kind: TestStack.Kind) throws {
        let stack = try Self.stack(kind)
        let ids = try Self.insertNotes(["a", "b", "c"], in: stack)
        let setup = stack.newContext()
        let folderID = try setup.performAndWait {
            let folder = ManagedObject(entity: stack.model.entitiesByName["Folder"]!, insertInto: setup)
            for id in ids { try setup.existingObject(with: id).setValue(folder, forKey: "folder") }
            try setup.save()
            return folder.objectID
        }
        let token = stack.coordinator.currentPersistentHistoryToken()
        let context = stack.newContext(name: "sweeper")
        context.transactionAuthor = "cleanup"
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Note")
            request.predicate = ObjectPredicate(format: "title != 'b'")
            _ = try context.execute(BatchDeleteRequest(fetchRequest: request))  // status only: IDs not asked for
        }
        let later = try Self.transactions(.fetchHistory(after: token), in: stack)
        try #require(later.count == 1)
        #expect(later[0].author == "cleanup" && later[0].contextName == "sweeper")
        let changes = try #require(later[0].changes)
        #expect(Set(changes.filter { $0.changeType == .delete }.map(\.changedObjectID)) == [ids[0], ids[2]])
        #expect(changes.filter { $0.changeType == .update }.map(\.changedObjectID) == [folderID])  // nullify: the folder lost two notes
        // Tombstones keep the preserved values of the deleted rows; the partner's update names
        // the relationship that lost them.
        let titles = Set(changes.filter { $0.changeType == .delete }.compactMap { $0.tombstone?["title"] as? String })
        #expect(titles == ["a", "c"])
        #expect(changes.first { $0.changeType == .update }?.updatedProperties?.map(\.name) == ["notes"])
    }

    @Test("objectIDNotification() merges a transaction into a context", arguments: TestStack.Kind.keepingHistory)
    func objectIDNotificationMerges(kind: TestStack.Kind) throws {
        let stack = try Self.stack(kind)
        let ids = try Self.insertNotes(["a"], in: stack)
        let viewer = stack.newContext()
        let bodyBefore = try viewer.performAndWait { try viewer.existingObject(with: ids[0]).value(forKey: "body") }
        #expect(bodyBefore == nil)
        let token = stack.coordinator.currentPersistentHistoryToken()
        let writer = stack.newContext()
        try writer.performAndWait {
            try writer.existingObject(with: ids[0]).setValue("new body", forKey: "body")
            try writer.save()
        }
        let inserted = try Self.insertNotes(["b"], in: stack)
        let transactions = try Self.transactions(.fetchHistory(after: token), in: stack)
        #expect(transactions.count == 2)
        let notification = try #require(transactions.first?.objectIDNotification())
        #expect((notification.userInfo?[ManagedObjectContext.NotificationKey.updatedObjectIDs] as? Set<ManagedObjectID>) == [ids[0]])
        #expect((transactions.last?.objectIDNotification().userInfo?[ManagedObjectContext.NotificationKey.insertedObjectIDs] as? Set<ManagedObjectID>) == Set(inserted))
        try viewer.performAndWait {
            for transaction in transactions { viewer.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
            let body = try viewer.existingObject(with: ids[0]).value(forKey: "body") as? String
            #expect(body == "new body")
        }
    }

    @Test("a failed save records no history", arguments: TestStack.Kind.keepingHistory)
    func failedSaveRecordsNothing(kind: TestStack.Kind) throws {
        let stack = try Self.stack(kind)
        let ids = try Self.insertNotes(["a"], in: stack)
        let stale = stack.newContext()
        let staleNote = try stale.performAndWait {
            let note = try stale.existingObject(with: ids[0])
            _ = note.value(forKey: "title")  // fires the fault: the context holds version 1
            return note
        }
        let other = stack.newContext()
        try other.performAndWait {
            try other.existingObject(with: ids[0]).setValue("other", forKey: "body")
            try other.save()
        }
        let token = stack.coordinator.currentPersistentHistoryToken()
        stale.performAndWait {
            staleNote.setValue("stale", forKey: "body")
            _ = #expect(throws: StrataError.self) { try stale.save() }  // optimistic locking conflict
        }
        #expect(try Self.transactions(.fetchHistory(after: token), in: stack).isEmpty)
    }

    @Test("history requests need tracking; a store class of the public seam that keeps none refuses it", arguments: TestStack.Kind.keepingHistory)
    func trackingRequired(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        #expect(stack.coordinator.currentPersistentHistoryToken() == nil)
        let context = stack.newContext()
        context.performAndWait {
            _ = #expect(throws: StrataError.self) { try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil)) }
        }
        PersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: DictionaryStore.storeType)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model())
        #expect(throws: StrataError.self) { try coordinator.addPersistentStore(type: DictionaryStore.storeType, options: Self.tracking) }
        #expect(coordinator.persistentStores.isEmpty)
    }

    /// Collects `.persistentStoreRemoteChange` notifications of one coordinator.
    final class RemoteChanges: @unchecked Sendable {
        // @unchecked Sendable: `received` is guarded by its lock; the observer token is set once.
        let received = StrataLock<[(token: PersistentHistoryToken?, store: String?)]>([])
        private var observer: (any NSObjectProtocol)?

        init(_ coordinator: PersistentStoreCoordinator) {
            observer = NotificationCenter.default.addObserver(forName: .persistentStoreRemoteChange, object: coordinator, queue: nil) { [weak self] notification in
                let token = notification.userInfo?[PersistentStoreCoordinator.RemoteChangeKey.historyToken] as? PersistentHistoryToken
                let store = notification.userInfo?[PersistentStoreCoordinator.RemoteChangeKey.storeUUID] as? String
                self?.received.withLock { $0.append((token, store)) }
            }
        }

        deinit { observer.map(NotificationCenter.default.removeObserver) }

        /// Waits (bounded) until `condition` holds for what was received.
        func wait(seconds: Double = 10, until condition: ([(token: PersistentHistoryToken?, store: String?)]) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if received.withLock({ condition($0) }) { return true }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return received.withLock { condition($0) }
        }
    }

    @Test("remoteChangeNotificationPost: one notification per transaction, in order, with its token and store", arguments: TestStack.Kind.postingOwnRemoteChanges)
    func remoteChangeForOwnSaves(kind: TestStack.Kind) throws {
        let stack = try Self.stack(kind, posting: true)
        let changes = RemoteChanges(stack.coordinator)
        try Self.insertNotes(["a"], in: stack)
        try Self.insertNotes(["b"], in: stack)
        let transactions = try Self.transactions(.fetchHistory(after: nil), in: stack)
        let identifier = stack.coordinator.persistentStores[0].identifier
        #expect(changes.wait { $0.count >= 2 })
        Thread.sleep(forTimeInterval: 0.2)  // nothing more comes
        let received = changes.received.withLock { $0 }
        #expect(received.map(\.token) == transactions.map(\.token))
        #expect(received.allSatisfy { $0.store == identifier })
    }

    @Test("remoteChangeNotificationPost without tracking: notifications name the store and carry no token", arguments: TestStack.Kind.postingOwnRemoteChanges)
    func remoteChangeWithoutHistory(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind, options: [PersistentStoreOption.remoteChangeNotificationPost: true])
        let changes = RemoteChanges(stack.coordinator)
        try Self.insertNotes(["a"], in: stack)
        let identifier = stack.coordinator.persistentStores[0].identifier
        #expect(changes.wait { !$0.isEmpty })
        #expect(changes.received.withLock { $0.allSatisfy { $0.token == nil && $0.store == identifier } })
        #expect(stack.coordinator.currentPersistentHistoryToken() == nil)
    }

    @Test("remote changes: another coordinator's writes to the same file are posted, and readable after the token (SQLite)")
    func remoteChangeFromAnotherConnection() throws {
        let stack = try Self.stack(.sqlite, posting: true)
        let changes = RemoteChanges(stack.coordinator)
        let token = stack.coordinator.currentPersistentHistoryToken()
        let other = PersistentStoreCoordinator(managedObjectModel: stack.model)
        try other.addPersistentStore(type: .sqlite, at: stack.storeURL, options: Self.tracking)
        let writer = ManagedObjectContext(concurrencyType: .privateQueue)
        writer.persistentStoreCoordinator = other
        writer.transactionAuthor = "elsewhere"
        try writer.performAndWait {
            ManagedObject(entity: stack.model.entitiesByName["Note"]!, insertInto: writer).setValue("remote", forKey: "title")
            try writer.save()
        }
        #expect(changes.wait { $0.contains { $0.token != nil } })
        let transactions = try Self.transactions(.fetchHistory(after: token), in: stack)
        #expect(transactions.map(\.author) == ["elsewhere"])
        #expect(changes.received.withLock { $0.compactMap(\.token) } == transactions.map(\.token))
        for store in other.persistentStores { try other.remove(store) }
    }

    @Test("removing a store stops its notifications")
    func removingStopsPosting() throws {
        let stack = try Self.stack(.sqlite, posting: true)
        let changes = RemoteChanges(stack.coordinator)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        let other = PersistentStoreCoordinator(managedObjectModel: stack.model)
        try other.addPersistentStore(type: .sqlite, at: stack.storeURL, options: Self.tracking)
        let writer = ManagedObjectContext(concurrencyType: .privateQueue)
        writer.persistentStoreCoordinator = other
        try writer.performAndWait {
            ManagedObject(entity: stack.model.entitiesByName["Note"]!, insertInto: writer).setValue("x", forKey: "title")
            try writer.save()
        }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(changes.received.withLock { $0.isEmpty })
    }
}
