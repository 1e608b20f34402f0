import Dispatch
import Foundation
import StrataLocks
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The events one thread gathered for a recording and not yet handed over. Its lock is taken by
/// its thread on each event and by the recording when it ends, so it is almost never contended.
final class TraceThreadBuffer: Sendable {
    let events = StrataLock<[TraceEvent]>([])
}

/// One recording: each thread gathers events in its own buffer and hands them over in batches
/// to the recording's writer thread, which turns each batch into JSON and appends it to the file.
/// The writer runs at a lower priority (nice 10) than the threads it records, so that on a busy
/// machine it takes the time they leave; emptied batches go back to the threads, so that a
/// recording does not allocate a batch per batch.
final class TraceSession: Sendable {
    /// Events a thread gathers before handing them over.
    static let threadBatchSize = 512
    /// How often the writer takes the batches handed over.
    static let writerPeriod = DispatchTimeInterval.milliseconds(20)
    /// Emptied batches kept for the threads to refill.
    static let spareBatchLimit = 16
    /// The writer thread's nice value (0 is the default, 19 the lowest priority).
    static let writerNiceValue: Int32 = 10

    let url: URL
    /// The recording's time zero, in `DispatchTime` nanoseconds.
    let origin: UInt64
    let maximumEvents: Int
    /// The `pid` field every event carries, as JSON.
    private let processField = TraceEvent.processField(pid: ProcessInfo.processInfo.processIdentifier)

    private struct Output {
        var handle: FileHandle?
        var wroteEvent = false
        var error: (any Error)?
    }

    /// Batches handed to the writer and not written yet; `closing` once ``finish()`` began.
    private struct Pending {
        var batches: [[TraceEvent]] = []
        var closing = false
    }

    /// Events handed to the writer, and events dropped over the limit.
    private let recorded = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    /// Tracks named so far (their `thread_name` event is written once).
    private let namedTracks = StrataLock<Set<Int>>([])
    private let threadBuffers = StrataLock<[TraceThreadBuffer]>([])
    private let spareBatches = StrataLock<[[TraceEvent]]>([])
    private let pending = StrataLock(Pending())
    /// Signalled when the recording ends; the writer otherwise wakes every ``writerPeriod``.
    private let writerWake = DispatchSemaphore(value: 0)
    /// Signalled by the writer when it wrote the last batch.
    private let writerDone = DispatchSemaphore(value: 0)
    private let output: StrataLock<Output>
    /// The recording's texts by number.
    let texts = TraceTextTable()

    /// Creates the file at `url` (replacing one there), writes the start of the JSON object and
    /// starts the writer thread.
    init(url: URL, maximumEvents: Int) throws {
        self.url = url
        self.maximumEvents = maximumEvents
        self.origin = DispatchTime.now().uptimeNanoseconds
        guard FileManager.default.createFile(atPath: url.path, contents: Data(#"{"traceEvents":["#.utf8)) else {
            throw StrataError(code: StrataError.Code.coreData, message: "Could not create the trace file \(url.path)", url: url)
        }
        do {
            let handle = try FileHandle(forWritingTo: url)
            try handle.seekToEnd()
            output = StrataLock(Output(handle: handle))
        } catch {
            throw StrataError(code: StrataError.Code.coreData, message: "Could not open the trace file \(url.path): \(error)", url: url)
        }
        let writer = Thread { [self] in runWriter() }
        writer.start()
        hand([TraceEvent(name: "process_name", phase: .metadata, time: 0, track: 0, arguments: recorded(TraceArguments(.text("name", "Strata"))))])
    }

    /// Nanoseconds since the recording started.
    func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds &- origin }

    /// Records `event` from the thread whose state is `state`.
    func record(_ event: TraceEvent, from state: TraceThreadState) {
        let buffer = threadBuffer(of: state)
        let full: [TraceEvent]? = buffer.events.withLock { events in
            events.append(event)
            guard events.count >= Self.threadBatchSize else { return nil }
            let full = events
            events = emptyBatch()
            return full
        }
        if let full { submit(full) }
    }

    /// Names `track` (its `thread_name` event, from `name()`) the first time any thread uses it.
    func name(_ track: TraceTrack, from state: TraceThreadState, _ name: () -> String) {
        guard state.noteNamed(track, in: ObjectIdentifier(self)) else { return }
        guard namedTracks.withLock({ $0.insert(track.id).inserted }) else { return }
        hand([
            TraceEvent(name: "thread_name", phase: .metadata, time: 0, track: track.id, arguments: recorded(TraceArguments(.text("name", name())))),
            TraceEvent(name: "thread_sort_index", phase: .metadata, time: 0, track: track.id, arguments: recorded(TraceArguments(.number("sort_index", track.id)))),
        ])
    }

    /// The number of `text` in this recording, from the thread whose state is `state`.
    func number(of text: String, from state: TraceThreadState) -> TraceText {
        if state.textSession != ObjectIdentifier(self) {
            state.textSession = ObjectIdentifier(self)
            state.textCache = TraceTextCache()
        }
        return state.textCache.number(of: text, in: texts)
    }

    /// `arguments` with their texts numbered, from the thread whose state is `state`.
    func recorded(_ arguments: TraceArguments, from state: TraceThreadState) -> RecordedTraceArguments {
        RecordedTraceArguments(arguments, numbering: { number(of: $0, from: state) }, numberingMessage: { texts.number(ofMessage: $0) })
    }

    /// `arguments` with their texts numbered without a thread's cache (names, written once).
    private func recorded(_ arguments: TraceArguments) -> RecordedTraceArguments {
        RecordedTraceArguments(arguments, numbering: { texts.number(of: $0) }, numberingMessage: { texts.number(ofMessage: $0) })
    }

    /// This thread's buffer, made and registered on the thread's first event.
    private func threadBuffer(of state: TraceThreadState) -> TraceThreadBuffer {
        if state.bufferSession == ObjectIdentifier(self), let buffer = state.buffer { return buffer }
        let buffer = TraceThreadBuffer()
        buffer.events.withLock { $0 = emptyBatch() }
        threadBuffers.withLock { $0.append(buffer) }
        state.buffer = buffer
        state.bufferSession = ObjectIdentifier(self)
        return buffer
    }

    /// A spare batch the writer emptied, or a new one with room for a whole batch.
    private func emptyBatch() -> [TraceEvent] {
        if let spare = spareBatches.withLock({ $0.popLast() }) { return spare }
        var batch: [TraceEvent] = []
        batch.reserveCapacity(Self.threadBatchSize)
        return batch
    }

    /// Hands a thread's batch to the writer, or counts it as dropped past the limit.
    private func submit(_ events: [TraceEvent]) {
        guard recorded.add(events.count, ordering: .relaxed).newValue <= maximumEvents else {
            dropped.add(events.count, ordering: .relaxed)
            return
        }
        hand(events)
    }

    /// Queues `events` for the writer, which takes them on its next round: a thread handing a
    /// batch over makes no system call (waking the writer for each batch cost more than the
    /// writing).
    private func hand(_ events: [TraceEvent]) {
        pending.withLock { $0.batches.append(events) }
    }

    /// The writer thread's loop: writes the batches handed over until the recording ends.
    private func runWriter() {
        #if canImport(Glibc)
        // On Linux, PRIO_PROCESS with 0 sets the calling thread's nice value only.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.writerNiceValue)
        #endif
        let bytes = TraceJSONBuffer()
        var escapedTexts: [[UInt8]] = []
        while true {
            _ = writerWake.wait(timeout: .now() + Self.writerPeriod)
            let (taken, closing) = pending.withLock { pending in
                let batches = pending.batches
                pending.batches = []
                return (batches, pending.closing)
            }
            // Each batch is taken out of the list, so that emptying it keeps its memory (emptying
            // a batch the list still holds would allocate a new one).
            var batches = Array(taken.reversed())
            while var batch = batches.popLast() {
                write(batch, using: bytes, texts: &escapedTexts)
                batch.removeAll(keepingCapacity: true)
                spareBatches.withLock { spares in
                    if spares.count < Self.spareBatchLimit { spares.append(batch) }
                }
            }
            if closing { break }
        }
        writerDone.signal()
    }

    /// Writes `events` as the next part of the `traceEvents` array, formatting them in `bytes`.
    /// Runs on the writer thread.
    private func write(_ events: [TraceEvent], using bytes: TraceJSONBuffer, texts escapedTexts: inout [[UInt8]]) {
        guard !events.isEmpty else { return }
        // Every text an event names was numbered before the event was handed over.
        escapedTexts += texts.takeEscapedTexts(from: escapedTexts.count)
        bytes.removeAll()
        // Through the buffer: a loop over the array copies each event (retaining its strings).
        events.withUnsafeBufferPointer { events in
            for index in events.indices {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                events[index].appendJSON(to: bytes, processField: processField, texts: &escapedTexts)
            }
        }
        output.withLock { output in
            guard let handle = output.handle, output.error == nil else { return }
            do {
                if output.wroteEvent { try handle.write(contentsOf: [UInt8(ascii: ",")]) }
                try handle.write(contentsOf: bytes.bytes)
                output.wroteEvent = true
            } catch {
                output.error = error
            }
        }
    }

    /// Collects what the threads still hold, lets the writer write it and end, closes the JSON
    /// object (with the count of events dropped over the limit) and the file. Throws the first
    /// write error.
    func finish() throws {
        for buffer in threadBuffers.withLock({ $0 }) {
            let rest = buffer.events.withLock { events in
                let rest = events
                events = []
                return rest
            }
            if !rest.isEmpty { submit(rest) }
        }
        pending.withLock { $0.closing = true }
        writerWake.signal()
        writerDone.wait()
        // The recording object lives on (see StrataTrace.running); its batches need not.
        spareBatches.withLock { $0 = [] }
        threadBuffers.withLock { $0 = [] }
        let dropped = dropped.load(ordering: .relaxed)
        let failure: (any Error)? = output.withLock { output in
            guard let handle = output.handle else { return output.error }
            output.handle = nil
            if output.error == nil {
                let tail = #"],"displayTimeUnit":"ms","otherData":{"droppedEvents":"\#(dropped)","maximumEvents":"\#(maximumEvents)"}}"#
                do {
                    try handle.write(contentsOf: Data(tail.utf8))
                } catch {
                    output.error = error
                }
            }
            try? handle.close()
            return output.error
        }
        if let failure {
            throw StrataError(code: StrataError.Code.coreData, message: "Writing the trace file \(url.path) failed: \(failure)", url: url)
        }
    }
}
