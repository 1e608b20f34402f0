import Foundation
import ReliabilityKit
import StrataTestSupport
import Testing

/// Persistent history across processes (issue #14, item 6). Core Data's facts: a store's
/// history holds every process's transactions in commit order and a token marks a place in it
/// (Apple's "Consuming relevant store changes" sample and NSPersistentHistoryToken page); with
/// NSPersistentStoreRemoteChangeNotificationPostOptionKey the coordinator posts
/// NSPersistentStoreRemoteChange for changes made by other processes (WWDC 2019 "Making Apps
/// with Core Data").
@Suite("Persistent history across two processes", .enabled(if: harnessExecutable != nil, "StrataReliability is not built next to the test runner"))
struct HistoryProcessTests {
    @Test("two processes write one store; each reads the other's transactions after its token, in order, none missing, and is notified of each")
    func twoProcesses() throws {
        let executable = try #require(harnessExecutable)
        let directory = TemporaryDirectory(prefix: "strata-history")
        let store = directory.file("history.sqlite")
        let token = try HistoryExchange.createStore(at: store)
        let saves = 25
        // The parent writes once the child's store is added, so the child is notified of every
        // parent transaction; the child writes at once, while the parent is also writing.
        let ready = directory.file("child-ready")
        var childSide = HistoryExchange.Side(store: store, token: token, author: "child", peer: "parent", saves: saves, peerSaves: saves, seconds: 20)
        childSide.readyFile = ready
        let child = try ChildProcess(executable: executable, arguments: childSide.arguments, stderrPath: directory.file("child.stderr").path)
        var parentSide = HistoryExchange.Side(store: store, token: token, author: "parent", peer: "child", saves: saves, peerSaves: saves, seconds: 20)
        parentSide.waitsForFile = ready
        let parent = HistoryExchange.exchange(parentSide)
        let ended = child.wait(timeout: 40) ?? child.killAndReap()
        child.drain()
        #expect(parent.problems.isEmpty, "\(parent.problems)")
        #expect(parent.peerSeen == saves && parent.notified > 0)  // the child's transactions after the parent's store was added
        #expect(ended == .exited(0), "child: \(child.outputLines) \(child.errorOutput)")
        #expect(child.outputLines.contains { $0.hasPrefix("RESULT peerSeen=\(saves) notified=\(saves) problems=0") }, "\(child.outputLines)")
    }
}
