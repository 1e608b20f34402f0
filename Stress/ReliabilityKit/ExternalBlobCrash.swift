import Foundation
import Strata
import StrataProgress
import StrataTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// SIGKILL loop over saves of external binary data (docs/models-and-migration.md, "External
/// binary storage"): a child (`external-child`) inserts, replaces, clears and deletes values of
/// an attribute that allows external storage (some below the threshold, some shared by several
/// rows) and acknowledges each save; the parent kills it at a random moment, reopens the store
/// with Strata (which collects orphans) and checks:
/// - every row reads back its exact bytes (regenerated from the seed and size the row keeps);
/// - every referenced file exists, is named by the SHA-256 of its bytes (checked with
///   coreutils' `sha256sum`, an implementation independent of Strata's), and no orphan or
///   temporary file remains;
/// - no acknowledged save is lost.
public struct ExternalBlobCrash {
    /// What to run.
    public struct Configuration: Sendable {
        /// The `StrataReliability` executable (it runs `external-child`).
        public var executable: String
        /// A folder for the store.
        public var directory: URL
        /// How many kills.
        public var kills: Int
        /// The run's seed.
        public var seed: UInt64
        /// The latest a kill comes after the child starts (seconds).
        public var maximumDelay: TimeInterval = 0.6

        /// Creates a configuration.
        public init(executable: String, directory: URL, kills: Int, seed: UInt64) {
            self.executable = executable
            self.directory = directory
            self.kills = kills
            self.seed = seed
        }
    }

    /// The configuration.
    public let configuration: Configuration

    /// Creates a loop.
    public init(_ configuration: Configuration) { self.configuration = configuration }

    /// The threshold the child and the checker use (bytes).
    static let threshold = 2_048

    /// Runs the loop and returns its report.
    public func run() -> PartReport {
        let started = Date()
        var details = DetailLog()
        var random = SeededRandom(seed: configuration.seed)
        let store = configuration.directory.appendingPathComponent("blobs.sqlite")
        try? FileManager.default.createDirectory(at: configuration.directory, withIntermediateDirectories: true)
        var kills = 0
        var acknowledged: Int64 = 0
        var lost = 0
        var wrongValues = 0
        var dangling = 0
        var orphans = 0
        var temporary = 0
        var badNames = 0
        var childFailures = 0
        var checkedFiles = 0
        var collected = 0
        // A status line on a terminal only; off one the part prints its report at the end.
        let meter = ProgressMeter(lineInterval: nil)
        defer { meter.finish() }
        for round in 0..<configuration.kills {
            meter.update(
                ProgressStatus(
                    label: "external data crash loop", done: round, total: configuration.kills, unit: "rounds", checks: checkedFiles,
                    detail: "\(kills) kills, \(acknowledged) acknowledged saves, \(lost + wrongValues + dangling) damaged",
                    elapsed: Date().timeIntervalSince(started)))
            let stderrPath = configuration.directory.appendingPathComponent("child-\(round).err").path
            guard
                let child = try? ChildProcess(
                    executable: configuration.executable, arguments: ["external-child", "--store", store.path, "--seed", String(configuration.seed &+ UInt64(round))],
                    stderrPath: stderrPath)
            else {
                childFailures += 1
                continue
            }
            let delay = 0.05 + Double(random.below(1_000)) / 1_000 * configuration.maximumDelay
            if child.sleep(delay) {
                childFailures += 1
                details.add("round \(round): the child ended early: \(child.errorOutput)")
            }
            child.killAndReap()
            kills += 1
            for line in child.outputLines where line.hasPrefix("ACK ") {
                if let value = Int64(line.dropFirst(4)) { acknowledged = max(acknowledged, value) }
            }
            let check = Self.check(store)
            if let failure = check.failure {
                details.add("round \(round): \(failure)")
                childFailures += 1
                continue
            }
            if check.counter < acknowledged {
                lost += 1
                details.add("round \(round): acknowledged \(acknowledged), stored \(check.counter)")
            }
            acknowledged = max(acknowledged, check.counter)
            wrongValues += check.wrongValues
            dangling += check.dangling
            orphans += check.orphans
            temporary += check.temporary
            badNames += check.badNames
            checkedFiles += check.files
            collected += check.collected
            for line in check.details { details.add("round \(round): \(line)") }
        }
        let figures = [
            Figure("kills", kills, atLeast: 1),
            Figure("acknowledged saves", Int(acknowledged)),
            Figure("files checked", checkedFiles),
            Figure("files collected on reopen", collected),
            Figure("acknowledged saves lost", lost, mustBeZero: true),
            Figure("values read back wrong or unreadable", wrongValues, mustBeZero: true),
            Figure("references without their file", dangling, mustBeZero: true),
            Figure("files whose name is not their SHA-256", badNames, mustBeZero: true),
            Figure("orphan files after reopening", orphans, mustBeZero: true),
            Figure("temporary files after reopening", temporary, mustBeZero: true),
            Figure("child or check failures", childFailures, mustBeZero: true),
        ]
        return PartReport(name: "external binary data crash loop", figures: figures, details: details.items, seconds: Date().timeIntervalSince(started))
    }

    // MARK: The model

    /// Blob(key, seed, size, data: external storage allowed) and Counter(value).
    static func model() -> ManagedObjectModel {
        let blob = EntityDescription(name: "Blob")
        let data = AttributeDescription(name: "data", type: .binaryData)
        data.allowsExternalBinaryDataStorage = true
        blob.properties = [
            AttributeDescription(name: "key", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "seed", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "size", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            data,
        ]
        let counter = EntityDescription(name: "Counter")
        counter.properties = [AttributeDescription(name: "value", type: .integer64, isOptional: false, defaultValue: Int64(0))]
        return ManagedObjectModel(entities: [blob, counter])
    }

    /// The bytes of a value (`size` bytes from `seed`).
    static func bytes(seed: Int64, size: Int64) -> Data {
        var state = UInt64(bitPattern: seed) &* 0x9E37_79B9_7F4A_7C15 &+ 0x632B_E59B_D9B4_E019
        var data = Data(count: Int(size))
        data.withUnsafeMutableBytes { buffer in
            for index in buffer.indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                buffer[index] = UInt8(truncatingIfNeeded: state)
            }
        }
        return data
    }

    static func coordinator(_ url: URL) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model())
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.externalBinaryDataThreshold: threshold])
        return coordinator
    }

    // MARK: The check

    struct Check {
        var failure: String?
        var counter: Int64 = 0
        var wrongValues = 0
        var dangling = 0
        var orphans = 0
        var temporary = 0
        var badNames = 0
        var files = 0
        /// Names in the folder before reopening that were gone after.
        var collected = 0
        var details: [String] = []
    }

    /// Reopens the store with Strata (collecting orphans), reads every value, then compares
    /// the folder with the references the rows hold.
    static func check(_ url: URL) -> Check {
        var check = Check()
        let folder = SQLiteFolder.external(of: url)
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        do {
            let coordinator = try coordinator(url)
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                let counters = try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter"))
                check.counter = counters.compactMap { $0.value(forKey: "value") as? Int64 }.max() ?? 0
                for blob in try context.fetch(FetchRequest<ManagedObject>(entityName: "Blob")) {
                    let seed = blob.value(forKey: "seed") as? Int64 ?? 0
                    let size = blob.value(forKey: "size") as? Int64 ?? 0
                    let expected = seed < 0 ? nil : bytes(seed: seed, size: size)
                    if blob.value(forKey: "data") as? Data != expected {
                        check.wrongValues += 1
                        check.details.append("blob \(blob.value(forKey: "key") ?? "?") reads back wrong")
                    }
                }
            }
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        } catch {
            check.dangling += 1
            check.details.append("reading the store failed: \(error)")
        }
        do {
            let raw = try RawSQLite(path: url.path)
            var referenced = Set<String>()
            for row in try raw.rows("SELECT ZDATA FROM ZBLOB WHERE typeof(ZDATA) = 'text'") {
                if let text = row.first?.text, let range = text.range(of: "sha256:") { referenced.insert(String(text[range.upperBound...])) }
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            check.collected = before.subtracting(names).count
            let finished = Set(names.filter { $0.count == 64 })
            check.temporary = names.count - finished.count
            check.files = finished.count
            check.dangling += referenced.subtracting(finished).count
            check.orphans = finished.subtracting(referenced).count
            let sums = try sha256sums(of: finished.sorted(), in: folder)
            for name in finished where sums[name] != name {
                check.badNames += 1
                check.details.append("file \(name) has SHA-256 \(sums[name] ?? "?")")
            }
        } catch {
            check.failure = "checking the folder failed: \(error)"
        }
        return check
    }

    /// The SHA-256 of each file, by coreutils' `sha256sum`.
    static func sha256sums(of names: [String], in folder: URL) throws -> [String: String] {
        guard !names.isEmpty else { return [:] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.currentDirectoryURL = folder
        process.arguments = names
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var sums: [String: String] = [:]
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            sums[parts[1].trimmingCharacters(in: CharacterSet(charactersIn: " *"))] = String(parts[0])
        }
        return sums
    }

    // MARK: The child

    /// `external-child --store PATH --seed N`: saves until killed, printing `ACK <counter>`
    /// after each save returns. Returns the exit code (only on an error).
    public static func runChild(_ arguments: Arguments) -> Int32 {
        guard let path = arguments.string("store") else { return 2 }
        var random = SeededRandom(seed: arguments.uint64("seed", 1))
        do {
            let coordinator = try coordinator(URL(fileURLWithPath: path))
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                guard let blobEntity = coordinator.managedObjectModel.entitiesByName["Blob"], let counterEntity = coordinator.managedObjectModel.entitiesByName["Counter"] else { return }
                let counter = try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter")).first ?? ManagedObject(entity: counterEntity, insertInto: context)
                var value = counter.value(forKey: "value") as? Int64 ?? 0
                var blobs = try context.fetch(FetchRequest<ManagedObject>(entityName: "Blob"))
                while true {
                    value += 1
                    for _ in 0..<(1 + random.below(3)) {
                        let action = random.below(10)
                        // Seeds from a small pool: equal values share files.
                        let seed = Int64(random.below(40))
                        let size = Int64(random.chance(0.2) ? random.below(threshold) : threshold + random.below(40_000))
                        if action < 5 || blobs.isEmpty {
                            let blob = ManagedObject(entity: blobEntity, insertInto: context)
                            blob.setValue(value * 10 + Int64(blobs.count % 10), forKey: "key")
                            set(blob, seed: seed, size: size)
                            blobs.append(blob)
                        } else if action < 8 {
                            set(blobs[random.below(blobs.count)], seed: action == 7 ? -1 : seed, size: size)
                        } else {
                            context.delete(blobs.remove(at: random.below(blobs.count)))
                        }
                    }
                    counter.setValue(value, forKey: "value")
                    try context.save()
                    StandardOutput.writeLine("ACK \(value)")
                }
            }
        } catch {
            FileHandle.standardError.write(Data("external-child: \(error)\n".utf8))
            return 1
        }
        return 0
    }

    private static func set(_ blob: ManagedObject, seed: Int64, size: Int64) {
        blob.setValue(seed, forKey: "seed")
        blob.setValue(size, forKey: "size")
        blob.setValue(seed < 0 ? nil : bytes(seed: seed, size: size), forKey: "data")
    }
}

/// Where Strata keeps a SQLite store's external binary data (`.<StoreName>_SUPPORT/_EXTERNAL_DATA`
/// beside it; see docs/models-and-migration.md).
enum SQLiteFolder {
    static func external(of url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent("." + url.deletingPathExtension().lastPathComponent + "_SUPPORT/_EXTERNAL_DATA")
    }
}
