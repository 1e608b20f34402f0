import Foundation
import Strata

/// A store on read-only media (a tmpfs remounted read-only): Strata must open it for reading
/// where SQLite allows it, report a clear error where it does not, and refuse writes with a
/// clear `StrataError`, never changing the file.
public struct ReadOnlyMedia {
    /// A folder to mount the tmpfs under.
    public let directory: URL
    /// The seed.
    public let seed: UInt64

    /// Creates the test.
    public init(directory: URL, seed: UInt64) {
        self.directory = directory
        self.seed = seed
    }

    /// What happened to one way of opening one store.
    public struct Observation: Sendable, CustomStringConvertible {
        /// The journal mode of the store.
        public var journal: JournalMode
        /// Whether the store was added with `PersistentStoreOption.readOnly`.
        public var readOnlyOption: Bool
        /// Whether it opened.
        public var opened: Bool
        /// The error when it did not open, or when a save failed.
        public var error: String?
        /// The saves Strata read (when it opened).
        public var savesRead: Int?
        /// Whether every error was a clear StrataError (it says the store or media is read-only).
        public var clear: Bool
        /// Whether a save was refused.
        public var saveRefused: Bool?

        public var description: String {
            let how = "\(journal) store, \(readOnlyOption ? "readOnly option" : "no readOnly option")"
            if opened {
                return "\(how): opens, reads \(savesRead ?? 0) saves; a save \(saveRefused == true ? "is refused" : "is NOT refused")\(error.map { ": \($0)" } ?? "")"
            }
            return "\(how): does not open: \(error ?? "?")"
        }
    }

    /// Runs the test; a visible SKIP when it cannot mount.
    public func run() -> PartReport {
        let name = "read-only media (tmpfs remounted ro)"
        if let reason = Mounts.unavailableReason { return PartReport(name: name, skipped: reason) }
        let started = Date()
        let mountPoint = directory.appendingPathComponent("readonly")
        do {
            try Mounts.mountTmpfs(at: mountPoint, size: "8m")
        } catch {
            return PartReport(name: name, skipped: "\(error)")
        }
        defer { Mounts.unmount(mountPoint) }
        var details: [String] = []
        var unclear = 0
        var wrongReads = 0
        var writesAccepted = 0
        var changedFiles = 0
        var opened = 0
        let book = RecipeBook(seed: seed, accounts: 8, route: .plain)
        var sizes: [JournalMode: Data] = [:]
        do {
            for journal in JournalMode.allCases {
                let url = mountPoint.appendingPathComponent("\(journal).sqlite")
                try BankWorkload.createStore(at: url, settings: StoreSettings(journal: journal), accounts: 8)
                try withExtendedLifetime(try BankStack(url: url, settings: StoreSettings(journal: journal))) { stack in
                    let root = stack.newContext()
                    for number in Int64(1)...5 { try BankWorkload.save(book.recipe(number), root: root) }
                    stack.close()
                }
                sizes[journal] = FileManager.default.contents(atPath: url.path)
            }
            try Mounts.remount(mountPoint, readOnly: true)
        } catch {
            return PartReport(name: name, figures: [Figure("setup failures", 1, mustBeZero: true)], details: ["\(error)"], seconds: Date().timeIntervalSince(started))
        }
        for journal in JournalMode.allCases {
            let url = mountPoint.appendingPathComponent("\(journal).sqlite")
            for readOnlyOption in [true, false] {
                let observation = observe(url: url, journal: journal, readOnlyOption: readOnlyOption, book: book)
                details.append(observation.description)
                if !observation.clear { unclear += 1 }
                if observation.opened {
                    opened += 1
                    if observation.savesRead != 5 { wrongReads += 1 }
                    if observation.saveRefused != true { writesAccepted += 1 }
                }
                if FileManager.default.contents(atPath: url.path) != sizes[journal] { changedFiles += 1 }
            }
        }
        try? Mounts.remount(mountPoint, readOnly: false)
        var report = PartReport(
            name: name,
            figures: [
                Figure("ways of opening tried", 4),
                Figure("opened for reading", opened, atLeast: 1),
                Figure("unclear errors", unclear, mustBeZero: true),
                Figure("wrong reads", wrongReads, mustBeZero: true),
                Figure("writes not refused", writesAccepted, mustBeZero: true),
                Figure("files changed", changedFiles, mustBeZero: true),
            ],
            details: [], seconds: Date().timeIntervalSince(started))
        report.notes = details
        return report
    }

    private func observe(url: URL, journal: JournalMode, readOnlyOption: Bool, book: RecipeBook) -> Observation {
        var observation = Observation(journal: journal, readOnlyOption: readOnlyOption, opened: false, clear: true)
        let stack: BankStack
        do {
            stack = try BankStack(url: url, settings: StoreSettings(journal: journal, readOnly: readOnlyOption))
        } catch {
            observation.error = "\(error)"
            observation.clear = Self.isClear(error)
            return observation
        }
        defer { stack.close() }
        observation.opened = true
        let context = stack.newContext()
        do {
            observation.savesRead = try context.performAndWait {
                try context.count(for: FetchRequest<ManagedObject>(entityName: "SaveRecord"))
            }
        } catch {
            observation.error = "reading failed: \(error)"
            observation.clear = false
            return observation
        }
        do {
            try BankWorkload.save(book.recipe(6), root: context)
            observation.saveRefused = false
        } catch {
            observation.saveRefused = true
            observation.error = "\(error)"
            observation.clear = Self.isClear(error)
        }
        return observation
    }

    /// A clear error: a StrataError whose message says the store or its media is read-only.
    static func isClear(_ error: any Error) -> Bool {
        guard let strata = error as? StrataError else { return false }
        return strata.message.lowercased().contains("read-only")
    }
}
