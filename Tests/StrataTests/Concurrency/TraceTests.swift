import Foundation
import Strata
import StrataTestSupport
import Testing

// `StrataTrace` (`STRATA_TRACE=path.json`) writes Chrome trace-event JSON. Core Data has no such
// trace; what it draws follows Core Data's rules: a child's `save()` pushes its changes into its
// parent, synchronously, on the parent's queue (so the arrow goes from the child's save span to
// a span on the parent's track that lies inside it in time), and a root context's did-save is
// merged by each context with `automaticallyMergesChangesFromParent` in a block of its own
// queue, after the save (the arrow goes forward in time to a merge span on that context's
// track). The suite is serialized: one recording at a time per process.
@Suite("StrataTrace: Chrome trace-event JSON of what the contexts did", .serialized)
struct TraceTests {
    /// One event of the file, as parsed.
    struct Event {
        let name: String
        let phase: String
        let track: Int
        let start: Double
        let end: Double
        let id: Int?
        let arguments: [String: Any]

        init?(_ object: [String: Any]) {
            guard let name = object["name"] as? String, let phase = object["ph"] as? String, let track = object["tid"] as? Int,
                let start = (object["ts"] as? NSNumber)?.doubleValue, object["pid"] is Int
            else { return nil }
            self.name = name
            self.phase = phase
            self.track = track
            self.start = start
            self.end = start + ((object["dur"] as? NSNumber)?.doubleValue ?? 0)
            self.id = object["id"] as? Int
            self.arguments = object["args"] as? [String: Any] ?? [:]
        }

        func contains(_ time: Double) -> Bool { start <= time && time <= end }
    }

    /// A parsed trace: its events and the names of its tracks.
    struct Trace {
        let events: [Event]
        let trackNames: [Int: String]
        let otherData: [String: Any]

        init(contentsOf url: URL) throws {
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
            let top = try #require(object as? [String: Any], "the file is one JSON object")
            let raw = try #require(top["traceEvents"] as? [[String: Any]], "it has a traceEvents array")
            var events: [Event] = []
            for item in raw {
                events.append(try #require(Event(item), "every event has name, ph, ts, pid and tid: \(item)"))
            }
            self.events = events
            var names: [Int: String] = [:]
            for event in events where event.phase == "M" && event.name == "thread_name" {
                names[event.track] = event.arguments["name"] as? String
            }
            trackNames = names
            otherData = top["otherData"] as? [String: Any] ?? [:]
        }

        /// The track named after the context called `contextName`.
        func track(of contextName: String) throws -> Int {
            try #require(trackNames.first { $0.value.hasPrefix(contextName + " #") }?.key, "a track for \(contextName) in \(trackNames)")
        }

        /// The spans (complete events) on `track` whose name starts with `name`.
        func spans(_ name: String, on track: Int) -> [Event] {
            events.filter { $0.phase == "X" && $0.track == track && $0.name.hasPrefix(name) }
        }

        /// The (start, finish) pairs of the arrows named `name`.
        func flows(_ name: String) -> [(start: Event, finish: Event)] {
            let starts = events.filter { $0.phase == "s" && $0.name == name }
            return starts.compactMap { start in
                events.first { $0.phase == "f" && $0.name == name && $0.id == start.id }.map { (start, $0) }
            }
        }
    }

    /// A background context named `contextName` on a new store in `directory`, and where its
    /// trace goes (both files named after `files`).
    struct Setup {
        let container: PersistentContainer
        let context: ManagedObjectContext
        let traceURL: URL

        init(context contextName: String, files: String, in directory: TemporaryDirectory) throws {
            container = try ConcurrencyGuide.makeContainer(storeURL: directory.file("\(files).sqlite"))
            context = container.newBackgroundContext()
            context.name = contextName
            traceURL = directory.file("\(files).json")
        }
    }

    @Test("a child save, a root save and a merge are spans on three tracks, joined by two arrows")
    func childSaveAndMerge() throws {
        let directory = TemporaryDirectory()
        let container = try ConcurrencyGuide.makeContainer(storeURL: directory.file("Trace.sqlite"))
        let parent = container.newBackgroundContext()
        parent.name = "trace-parent"
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        child.name = "trace-child"
        let observer = container.newBackgroundContext()
        observer.name = "trace-observer"
        observer.automaticallyMergesChangesFromParent = true
        let traceURL = directory.file("trace.json")

        try StrataTrace.start(writingTo: traceURL)
        #expect(StrataTrace.isRecording)
        try child.performAndWait {
            for index in 0..<3 {
                let person = ConcurrencyGuide.Person(context: child)
                person.name = "P\(index)"
            }
            try child.save()
        }
        try parent.performAndWait { try parent.save() }
        // A wait chain that only goes up the tree: the child's block waits for its parent.
        let counted = try child.performAndWait { try parent.performAndWait { try parent.count(for: FetchRequest<ConcurrencyGuide.Person>(entityName: "Person")) } }
        // Queued behind the merge the root save scheduled on the observer's queue.
        let (seen, firstID) = try observer.performAndWait {
            let people = try observer.fetch(FetchRequest<ConcurrencyGuide.Person>(entityName: "Person"))
            return (people.count, people.first?.objectID)
        }
        let fired = try observer.performAndWait {
            observer.reset()
            return (observer.object(with: try #require(firstID)) as? ConcurrencyGuide.Person)?.name
        }
        let written = try #require(try StrataTrace.stop())
        #expect(!StrataTrace.isRecording)
        #expect(written == traceURL)
        #expect(counted == 3 && seen == 3 && fired?.hasPrefix("P") == true)

        let trace = try Trace(contentsOf: traceURL)
        let childTrack = try trace.track(of: "trace-child")
        let parentTrack = try trace.track(of: "trace-parent")
        let observerTrack = try trace.track(of: "trace-observer")

        // The child's save pushed into the parent: an arrow from inside the child's save span
        // to the span that applied it on the parent's track, which lies inside the child's save.
        let childSave = try #require(trace.spans("save into parent", on: childTrack).first)
        #expect(childSave.arguments["inserted"] as? Int == 3)
        let applied = try #require(trace.spans("apply child save", on: parentTrack).first)
        #expect(childSave.contains(applied.start) && childSave.contains(applied.end))
        let push = try #require(trace.flows("child save pushed into parent").first { $0.start.track == childTrack })
        #expect(push.finish.track == parentTrack)
        #expect(childSave.contains(push.start.start))
        #expect(applied.contains(push.finish.start))

        // The root save wrote one transaction and its did-save was merged on the observer's queue.
        let rootSave = try #require(trace.spans("save", on: parentTrack).first { $0.name == "save" })
        #expect(rootSave.arguments["inserted"] as? Int == 3)
        #expect(trace.spans("write transaction", on: parentTrack).contains { rootSave.contains($0.start) })
        let merge = try #require(trace.spans("merge", on: observerTrack).first)
        #expect(merge.arguments["inserted"] as? Int == 3)
        let merged = try #require(trace.flows("did-save merged").first { $0.finish.track == observerTrack })
        #expect(merged.start.track == parentTrack)
        #expect(rootSave.contains(merged.start.start))
        #expect(merge.contains(merged.finish.start))
        #expect(merged.finish.start >= merged.start.start)

        // The wait chain: the parent's block ran inside the child's, on the parent's track.
        let waits = trace.spans("performAndWait", on: childTrack)
        let parentCount = try #require(trace.spans("count Person", on: parentTrack).first)
        #expect(waits.contains { $0.contains(parentCount.start) && $0.contains(parentCount.end) })

        // The observer's fetch: its SQL and row count, inside the fetch span, inside the block.
        let fetch = try #require(trace.spans("fetch Person", on: observerTrack).first)
        #expect(fetch.arguments["results"] as? Int == 3)
        let sql = try #require(trace.spans("SQL", on: observerTrack).first { fetch.contains($0.start) })
        #expect((sql.arguments["sql"] as? String)?.contains("SELECT") == true)
        #expect(sql.arguments["rows"] as? Int == 3)
        #expect(trace.spans("performAndWait", on: observerTrack).contains { $0.contains(fetch.start) && $0.contains(fetch.end) })

        // The fault fired after the reset read its row from the store.
        let fault = try #require(trace.spans("fault Person", on: observerTrack).first)
        #expect(fault.arguments["rows"] as? Int == 1)
    }

    @Test("names with quotes, backslashes, control characters and non-ASCII text come back unchanged")
    func escaping() throws {
        let directory = TemporaryDirectory()
        let name = "trace-escape \" \\ \n \t \u{7} \u{1F} é 漢 🚀"
        let setup = try Setup(context: name, files: "escape", in: directory)
        let (context, traceURL) = (setup.context, setup.traceURL)
        try StrataTrace.start(writingTo: traceURL)
        context.performAndWait {}
        try StrataTrace.stop()
        let trace = try Trace(contentsOf: traceURL)
        #expect(trace.trackNames.values.contains { $0.hasPrefix(name + " #") })
    }

    @Test("every span gets its own error and the full text of what it shares with others (SQL, names)")
    func errorsAndSharedTexts() throws {
        let directory = TemporaryDirectory()
        let setup = try Setup(context: "trace-errors", files: "errors", in: directory)
        let (context, traceURL) = (setup.context, setup.traceURL)
        try StrataTrace.start(writingTo: traceURL)
        // Core Data's validation: a required attribute set to nil fails the save, which throws
        // and leaves the context's changes in place (each failure names its attribute).
        let failures: [String] = context.performAndWait {
            var failures: [String] = []
            for key in ["name", "age"] {
                let person = ConcurrencyGuide.Person(context: context)
                person.setValue(nil, forKey: key)
                do {
                    try context.save()
                } catch {
                    failures.append("\(error)")
                }
                context.rollback()
            }
            return failures
        }
        let counts = try context.performAndWait {
            try (0..<30).map { _ in try context.fetch(FetchRequest<ConcurrencyGuide.Person>(entityName: "Person")).count }
        }
        try StrataTrace.stop()
        #expect(failures.count == 2 && counts == Array(repeating: 0, count: 30))

        let trace = try Trace(contentsOf: traceURL)
        let track = try trace.track(of: "trace-errors")
        let errors = trace.spans("save", on: track).compactMap { $0.arguments["error"] as? String }
        #expect(errors == failures)
        let fetches = trace.spans("fetch Person", on: track)
        let statements = trace.spans("SQL", on: track).compactMap { $0.arguments["sql"] as? String }
        #expect(fetches.count == 30)
        #expect(statements.count == 30 && Set(statements).count == 1 && statements.allSatisfy { $0.hasPrefix("SELECT") && $0.contains("ZPERSON") })
    }

    @Test("with no recording nothing is written, and stop() says so")
    func offByDefault() throws {
        #expect(!StrataTrace.isRecording)
        #expect(try StrataTrace.stop() == nil)
    }

    @Test("a recording over its event limit stays valid JSON and counts what it dropped")
    func eventLimit() throws {
        let directory = TemporaryDirectory()
        let setup = try Setup(context: "trace-limit", files: "limit", in: directory)
        let (context, traceURL) = (setup.context, setup.traceURL)
        try StrataTrace.start(writingTo: traceURL, maximumEvents: 10)
        try context.performAndWait {
            for _ in 0..<20 { _ = try context.count(for: FetchRequest<ConcurrencyGuide.Person>(entityName: "Person")) }
        }
        try StrataTrace.stop()
        let trace = try Trace(contentsOf: traceURL)
        #expect(trace.events.filter { $0.phase != "M" }.count <= 10)
        #expect(Int(trace.otherData["droppedEvents"] as? String ?? "") ?? 0 > 0)
    }

    @Test("a trace file that cannot be created is an error naming it")
    func unwritableFile() throws {
        let url = URL(fileURLWithPath: "/nonexistent-folder-\(UUID().uuidString)/trace.json")
        let error = try #require(throws: StrataError.self) { try StrataTrace.start(writingTo: url) }
        #expect(error.message.contains(url.path))
        #expect(!StrataTrace.isRecording)
    }
}
