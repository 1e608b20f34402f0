import Foundation
import Strata
import StrataStressKit
import StrataTestSupport
import Testing

/// `performAndWait` re-entrancy through chains of waits (rule 2 of `docs/concurrency.md`): a block that waits
/// for its parent, whose block calls back into the child, runs the inner child block inline —
/// on the waiting thread, seeing the child's unsaved state — instead of deadlocking on the
/// child's own queue.
@Suite("performAndWait re-entrancy through chains")
struct ReentrancyChainTests {
    static func person(in context: ManagedObjectContext, _ name: String) throws -> ManagedObject {
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Person"])
        let person = ManagedObject(entity: entity, insertInto: context)
        person.setValue(name, forKey: "name")
        return person
    }

    /// The current thread, as a comparable number.
    static var threadNumber: UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(Unmanaged.passUnretained(Thread.current).toOpaque()))) }

    @Test("child → parent → child runs the inner block inline, on the same thread, with the child's unsaved state")
    func childParentChild() throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let parent = stack.newContext(name: "parent")
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        let outcome = ThreadRunner.run(count: 1, timeout: 10) { _ in
            try child.performAndWait {
                _ = try Self.person(in: child, "unsaved")
                let outer = Self.threadNumber
                let (inner, inserted) = parent.performAndWait {
                    child.performAndWait { (Self.threadNumber, child.insertedObjects.count) }
                }
                #expect(inner == outer)
                #expect(inserted == 1)
            }
        }
        #expect(outcome.finished, "deadlock: the inner child block did not run inline")
        #expect(outcome.errors.isEmpty, "\(outcome.errors)")
    }

    @Test("grandchild → child → root → grandchild → child: every re-entry runs inline")
    func longChain() throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let tree = ContextTree(
            coordinator: stack.coordinator,
            specs: [
                .init("root"), .init("child", parent: 0), .init("grandchild", parent: 1),
            ])
        let (root, child, grandchild) = (tree[0], tree[1], tree[2])
        let outcome = ThreadRunner.run(count: 1, timeout: 10) { _ in
            let outer = Self.threadNumber
            let threads = try grandchild.performAndWait { () throws -> [UInt] in
                _ = try Self.person(in: grandchild, "g")
                return try child.performAndWait {
                    _ = try Self.person(in: child, "c")
                    return try root.performAndWait {
                        try grandchild.performAndWait {
                            // Saving the grandchild waits for the child: this thread runs it already.
                            try grandchild.save()
                            return child.performAndWait {
                                [Self.threadNumber, UInt(child.insertedObjects.count)]
                            }
                        }
                    }
                }
            }
            #expect(threads == [outer, 2])
        }
        #expect(outcome.finished, "deadlock in a chain of re-entrant waits")
        #expect(outcome.errors.isEmpty, "\(outcome.errors)")
    }

    @Test("a chain through a main-queue parent (whose block runs on the main thread) re-enters the child inline")
    func throughMainQueueParent() throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let view = ManagedObjectContext(concurrencyType: .mainQueue)
        view.persistentStoreCoordinator = stack.coordinator
        view.name = "view"
        let editor = ManagedObjectContext(concurrencyType: .privateQueue)
        editor.parent = view
        editor.name = "editor"
        let outcome = ThreadRunner.run(count: 1, timeout: 10) { _ in
            try editor.performAndWait {
                _ = try Self.person(in: editor, "draft")
                let seen = view.performAndWait {
                    // On the main thread now; the editor's queue is busy with the outer block,
                    // which waits for this one: the call must run inline here.
                    editor.performAndWait { editor.insertedObjects.count }
                }
                #expect(seen == 1)
                try editor.save()
            }
        }
        #expect(outcome.finished, "deadlock: the editor's block did not run inline on the main thread")
        #expect(outcome.errors.isEmpty, "\(outcome.errors)")
        view.performAndWait { #expect(view.insertedObjects.count == 1) }
    }

    @Test("in concurrency debug mode, the inline re-entry through a main-queue parent counts as on the child's queue")
    func debugModeAcceptsInheritedOwnership() async {
        await #expect(processExitsWith: .success) {
            setenv("STRATA_CONCURRENCY_DEBUG", "1", 1)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: ModelFixtures.people())
            _ = try? coordinator.addPersistentStore(type: .inMemory)
            let view = ManagedObjectContext(concurrencyType: .mainQueue)
            view.persistentStoreCoordinator = coordinator
            let editor = ManagedObjectContext(concurrencyType: .privateQueue)
            editor.parent = view
            let outcome = ThreadRunner.run(count: 1, timeout: 10) { _ in
                editor.performAndWait {
                    guard let entity = coordinator.managedObjectModel.entitiesByName["Person"] else { return }
                    let draft = ManagedObject(entity: entity, insertInto: editor)
                    view.performAndWait {
                        editor.performAndWait { draft.setValue("edited inline", forKey: "name") }
                    }
                }
            }
            exit(outcome.finished ? 0 : 1)
        }
    }
}
