import Foundation
import StrataPostgreSQL
import Testing

/// LISTEN/NOTIFY between connections (PostgreSQL's `NOTIFY` reference page: a notification
/// goes to every session listening on the channel when the sending transaction commits).
@Suite("PostgreSQL LISTEN/NOTIFY", .serialized, .disabled(if: PostgreSQLTestServer.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLNotificationTests {
    /// A notification sent on one connection reaches a connection listening on the channel,
    /// with its payload (any UTF-8) and the sender's process ID, well within a second.
    @Test func notificationIsDeliveredWithItsPayload() throws {
        let listener = try PostgreSQLTestServer.connect()
        let sender = try PostgreSQLTestServer.connect()
        let channel = "Strata Changes \(UUID().uuidString.prefix(6))"
        try listener.listen(channel)
        let started = ContinuousClock.now
        try sender.notify(channel, payload: "objects 1,2,3 — déjà vu ✓")
        let received = try listener.notifications(timeout: .seconds(1))
        #expect(ContinuousClock.now - started < .seconds(1))
        #expect(received == [PostgreSQLNotification(channel: channel, payload: "objects 1,2,3 — déjà vu ✓", senderProcessID: sender.serverProcessID)])
        // Another channel, and the lower-cased name of this one, are other channels.
        try sender.notify(channel.lowercased(), payload: "not for us")
        #expect(try listener.notifications(timeout: .milliseconds(200)).isEmpty)
    }

    /// Several payloads go in one statement and arrive in order, each as its own notification,
    /// whatever they hold (quotes, backslashes, braces and commas stay inside their element); in a
    /// transaction they arrive at the commit, as `pg_notify`'s do.
    @Test func severalPayloadsInOneStatement() throws {
        let listener = try PostgreSQLTestServer.connect()
        let sender = try PostgreSQLTestServer.connect()
        let channel = "batch_\(UUID().uuidString.prefix(6))"
        try listener.listen(channel)
        let payloads = (0..<50).map { #"{"k":[\#($0),2]} "quoted" \ back, {brace}"# } + ["", "last"]
        try sender.transaction {
            try sender.notify(channel, payloads: payloads)
            #expect(try listener.notifications(timeout: .milliseconds(100)).isEmpty)
        }
        var received: [String] = []
        while received.count < payloads.count {
            let batch = try listener.notifications(timeout: .seconds(2))
            if batch.isEmpty { break }
            received += batch.map(\.payload)
        }
        #expect(received == payloads)
        try sender.notify(channel, payloads: [])
        #expect(try listener.notifications(timeout: .milliseconds(100)).isEmpty)
    }

    /// libpq also reads notifications while it waits for a statement's result and queues them
    /// (`PQnotifies`): they are returned at once afterwards, with no wait.
    @Test func notificationsReadDuringAStatementAreKept() throws {
        let listener = try PostgreSQLTestServer.connect()
        let sender = try PostgreSQLTestServer.connect()
        let channel = "during_\(UUID().uuidString.prefix(6))"
        try listener.listen(channel)
        try sender.notify(channel, payload: "queued")
        // pg_sleep lets the notification arrive before the result does.
        try listener.execute("SELECT pg_sleep(0.2)")
        #expect(try listener.notifications(timeout: .zero).map(\.payload) == ["queued"])
    }

    /// A listener blocked in `notifications(timeout:)` wakes when a notification arrives from
    /// another thread's connection, without waiting for the timeout.
    @Test func waitingListenerWakesWhenANotificationArrives() throws {
        let url = try PostgreSQLTestServer.url()
        let listener = try PostgreSQLTestServer.connect()
        let channel = "wake_\(UUID().uuidString.prefix(6))"
        try listener.listen(channel)
        let sent = DispatchSemaphore(value: 0)
        let thread = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            _ = try? PostgreSQLConnection(url: url).notify(channel, payload: "late")
            sent.signal()
        }
        thread.start()
        let started = ContinuousClock.now
        let received = try listener.notifications(timeout: .seconds(10))
        let elapsed = ContinuousClock.now - started
        sent.wait()
        #expect(received.map(\.payload) == ["late"])
        #expect(elapsed < .seconds(5))
    }

    /// Nothing sent: the wait returns an empty list once the timeout has passed.
    @Test func waitReturnsEmptyAfterTheTimeout() throws {
        let listener = try PostgreSQLTestServer.connect()
        try listener.listen("quiet_\(UUID().uuidString.prefix(6))")
        let started = ContinuousClock.now
        #expect(try listener.notifications(timeout: .milliseconds(300)).isEmpty)
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(290))
        #expect(elapsed < .seconds(5))
    }

    /// A NOTIFY inside a transaction is delivered when it commits, never when it rolls back.
    @Test func notificationsFollowTheSendersTransaction() throws {
        let listener = try PostgreSQLTestServer.connect()
        let sender = try PostgreSQLTestServer.connect()
        let channel = "tx_\(UUID().uuidString.prefix(6))"
        try listener.listen(channel)
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try sender.transaction {
                try sender.notify(channel, payload: "rolled back")
                throw Abandon()
            }
        }
        try sender.transaction {
            try sender.notify(channel, payload: "first")
            try sender.notify(channel, payload: "second")
            #expect(try listener.notifications(timeout: .milliseconds(200)).isEmpty)
        }
        var payloads: [String] = []
        let deadline = ContinuousClock.now + .seconds(2)
        while payloads.count < 2 && ContinuousClock.now < deadline {
            payloads += try listener.notifications(timeout: .milliseconds(500)).map(\.payload)
        }
        #expect(payloads == ["first", "second"])
        try listener.unlisten(channel)
        try sender.notify(channel, payload: "after unlisten")
        #expect(try listener.notifications(timeout: .milliseconds(200)).isEmpty)
    }
}
