import Foundation
import StrataSQLite

/// One writer connection and a pool of reader connections on a WAL database, so a long save
/// never blocks fetches in other contexts (rule 5 of `docs/concurrency.md`).
///
/// The writer is used under a lock, by one thread at a time. Readers are opened on demand up to
/// `maximumReaders`; a thread that finds them all busy waits for one to come back.
final class SQLiteConnectionPool: @unchecked Sendable {
    // @unchecked Sendable: every connection is handed to one thread at a time under `condition`
    // (readers) or `writerLock` (writer); connections never escape the closures below.
    private let writer: SQLiteConnection
    private let writerLock = NSLock()
    private let condition = NSCondition()
    private var idleReaders: [SQLiteConnection] = []
    private var openReaders = 0
    private let maximumReaders: Int
    private let openReader: () throws -> SQLiteConnection
    private var closed = false
    /// Query generations pinned and not yet released (their readers are not in `openReaders`).
    private var pinnedGenerations = 0

    init(writer: SQLiteConnection, maximumReaders: Int, openReader: @escaping () throws -> SQLiteConnection) {
        self.writer = writer
        self.maximumReaders = max(1, maximumReaders)
        self.openReader = openReader
    }

    /// Runs `body` with the writer connection, serialised with every other write.
    func withWriter<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        writerLock.lock()
        defer { writerLock.unlock() }
        guard !closed else { throw StrataError(code: StrataError.Code.persistentStoreOperation, message: "The store was closed (removed from its coordinator)") }
        return try body(writer)
    }

    /// Runs `body` with a reader connection: the pinned one when `options` read through a query
    /// generation of this store, else one from the pool.
    func withReader<T>(_ options: ReadOptions, _ body: (SQLiteConnection) throws -> T) throws -> T {
        if let generation = options.generation, let pinned = generation.state(for: self) as? PinnedSQLiteState {
            return try pinned.withConnection(body)
        }
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        return try body(reader)
    }

    private func checkOutReader() throws -> SQLiteConnection {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if closed { throw StrataError(code: StrataError.Code.persistentStoreOperation, message: "The store was closed (removed from its coordinator)") }
            if let reader = idleReaders.popLast() { return reader }
            if openReaders < maximumReaders {
                openReaders += 1
                condition.unlock()
                do {
                    let reader = try openReader()
                    condition.lock()
                    return reader
                } catch {
                    condition.lock()
                    openReaders -= 1
                    condition.signal()
                    throw error
                }
            }
            condition.wait()
        }
    }

    private func checkIn(_ reader: SQLiteConnection) {
        condition.lock()
        if reader.isInTransaction { reader.rollbackIgnoringErrors() }
        idleReaders.append(reader)
        condition.signal()
        condition.unlock()
    }

    /// Opens a connection of the store's kind that the pool does not manage (the caller owns it
    /// and closes it by dropping it): the remote-change poster's.
    func openDetachedConnection() throws -> SQLiteConnection {
        try openReader()
    }

    /// Takes one reader out of the pool for a long-lived read transaction (query generations).
    func checkOutDedicatedReader() throws -> SQLiteConnection {
        let reader = try checkOutReader()
        condition.lock()
        openReaders -= 1  // no longer counted: it is the caller's until released
        condition.signal()
        condition.unlock()
        return reader
    }

    /// Opens a read transaction on a dedicated reader and keeps it open: reads through it see the
    /// database as it is now until the returned state is released.
    func pinGeneration() throws -> PinnedSQLiteState {
        let reader = try checkOutDedicatedReader()
        do {
            try reader.execute(SQLiteTransactionKind.deferred.beginStatement)
            // The first read fixes the snapshot the transaction sees.
            try reader.execute(MetadataStatements.pinnedFirstRead)
        } catch {
            reader.rollbackIgnoringErrors()
            throw error
        }
        condition.lock()
        pinnedGenerations += 1
        condition.unlock()
        return PinnedSQLiteState(connection: reader) { [weak self] in
            guard let self else { return }
            self.condition.lock()
            self.pinnedGenerations -= 1
            self.condition.unlock()
        }
    }

    /// Whether a reader is in use: checked out of the pool for a read, or holding a query
    /// generation. External binary data files are not removed meanwhile (such a reader may
    /// still see a reference to them; see `SQLiteStore+External.swift`). Callable from any thread.
    var hasReadersInUse: Bool {
        condition.lock()
        defer { condition.unlock() }
        return openReaders > idleReaders.count || pinnedGenerations > 0
    }

    /// Closes every idle connection; later use throws.
    func close() {
        writerLock.lock()
        condition.lock()
        closed = true
        idleReaders.removeAll()
        condition.broadcast()
        condition.unlock()
        writerLock.unlock()
    }
}
