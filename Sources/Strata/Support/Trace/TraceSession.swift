import Dispatch
import Foundation
import StrataLocks
import Synchronization

/// The events one thread gathered for a recording and not yet handed over. Its lock is taken by
/// its thread on each event and by the recording when it ends, so it is almost never contended.
final class TraceThreadBuffer: Sendable {
    let events = StrataLock<[TraceEvent]>([])
}

/// One recording: each thread gathers events in its own buffer and hands them over in batches
/// to a serial writer queue, which turns each batch into JSON and appends it to the file.
final class TraceSession: Sendable {
    /// Events a thread gathers before handing them over.
    static let threadBatchSize = 512

    let url: URL
    /// The recording's time zero, in `DispatchTime` nanoseconds.
    let origin: UInt64
    let maximumEvents: Int
    let pid = ProcessInfo.processInfo.processIdentifier

    private struct Output {
        var handle: FileHandle?
        var wroteEvent = false
        var error: (any Error)?
    }

    /// Events handed to the writer, and events dropped over the limit.
    private let recorded = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    /// Tracks named so far (their `thread_name` event is written once).
    private let namedTracks = StrataLock<Set<Int>>([])
    private let threadBuffers = StrataLock<[TraceThreadBuffer]>([])
    private let output: StrataLock<Output>
    private let writer = DispatchQueue(label: "strata.trace.writer")

    /// Creates the file at `url` (replacing one there) and writes the start of the JSON object.
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
        let process = TraceEvent(name: "process_name", phase: .metadata, time: 0, track: 0, arguments: [.text("name", "Strata")])
        writer.async { [self] in write([process]) }
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
            events = []
            events.reserveCapacity(Self.threadBatchSize)
            return full
        }
        if let full { submit(full) }
    }

    /// Names `track` (its `thread_name` event, from `name()`) the first time any thread uses it.
    func name(_ track: TraceTrack, from state: TraceThreadState, _ name: () -> String) {
        if state.namedSession != ObjectIdentifier(self) {
            state.namedSession = ObjectIdentifier(self)
            state.namedTracks = []
        }
        guard state.namedTracks.insert(track.id).inserted else { return }
        guard namedTracks.withLock({ $0.insert(track.id).inserted }) else { return }
        let events = [
            TraceEvent(name: "thread_name", phase: .metadata, time: 0, track: track.id, arguments: [.text("name", name())]),
            TraceEvent(name: "thread_sort_index", phase: .metadata, time: 0, track: track.id, arguments: [.number("sort_index", track.id)]),
        ]
        writer.async { [self] in write(events) }
    }

    /// This thread's buffer, made and registered on the thread's first event.
    private func threadBuffer(of state: TraceThreadState) -> TraceThreadBuffer {
        if state.bufferSession == ObjectIdentifier(self), let buffer = state.buffer { return buffer }
        let buffer = TraceThreadBuffer()
        threadBuffers.withLock { $0.append(buffer) }
        state.buffer = buffer
        state.bufferSession = ObjectIdentifier(self)
        return buffer
    }

    /// Hands a thread's batch to the writer, or counts it as dropped past the limit.
    private func submit(_ events: [TraceEvent]) {
        guard recorded.add(events.count, ordering: .relaxed).newValue <= maximumEvents else {
            dropped.add(events.count, ordering: .relaxed)
            return
        }
        writer.async { [self] in write(events) }
    }

    /// Writes `events` as the next part of the `traceEvents` array. Runs on the writer queue.
    private func write(_ events: [TraceEvent]) {
        guard !events.isEmpty else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(events.count * 200)
        for event in events {
            if !bytes.isEmpty { bytes.append(UInt8(ascii: ",")) }
            event.appendJSON(to: &bytes, pid: pid)
        }
        output.withLock { output in
            guard let handle = output.handle, output.error == nil else { return }
            do {
                if output.wroteEvent { try handle.write(contentsOf: [UInt8(ascii: ",")]) }
                try handle.write(contentsOf: bytes)
                output.wroteEvent = true
            } catch {
                output.error = error
            }
        }
    }

    /// Collects what the threads still hold, writes it, closes the JSON object (with the count
    /// of events dropped over the limit) and the file. Throws the first write error.
    func finish() throws {
        for buffer in threadBuffers.withLock({ $0 }) {
            let rest = buffer.events.withLock { events in
                let rest = events
                events = []
                return rest
            }
            if !rest.isEmpty { submit(rest) }
        }
        writer.sync {}
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
