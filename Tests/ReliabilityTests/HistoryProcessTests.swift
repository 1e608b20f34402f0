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
        let childSide = HistoryExchange.Side(store: store, token: token, author: "child", peer: "parent", saves: saves, peerSaves: saves, seconds: 20)
        let child = try ChildProcess(executable: executable, arguments: childSide.arguments, stderrPath: directory.file("child.stderr").path)
        let parent = HistoryExchange.exchange(HistoryExchange.Side(store: store, token: token, author: "parent", peer: "child", saves: saves, peerSaves: saves, seconds: 20))
        let ended = child.wait(timeout: 40) ?? child.killAndReap()
        child.drain()
        #expect(parent.problems.isEmpty, "\(parent.problems)")
        #expect(parent.peerSeen == saves && parent.notified == saves)
        #expect(ended == .exited(0), "child: \(child.outputLines) \(child.errorOutput)")
        #expect(child.outputLines.contains { $0.hasPrefix("RESULT peerSeen=\(saves) notified=\(saves) problems=0") }, "\(child.outputLines)")
    }
}
