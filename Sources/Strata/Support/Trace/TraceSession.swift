import Dispatch
import Foundation
import StrataLocks

/// One recording: the events gathered since it started, written to its file in chunks on a
/// serial queue so that threads emitting events only append to an array under a lock.
final class TraceSession: Sendable {
    /// Events held in memory before a chunk is handed to the writer.
    static let chunkSize = 50_000

    let url: URL
    /// The recording's time zero, in `DispatchTime` nanoseconds.
    let origin: UInt64
    let maximumEvents: Int
    private let processID = ProcessInfo.processInfo.processIdentifier

    private struct Buffer {
        var events: [TraceEvent] = []
        var namedTracks: Set<Int> = []
        var recorded = 0
        var dropped = 0
    }

    private struct Output {
        var handle: FileHandle?
        var wroteEvent = false
        var error: (any Error)?
    }

    private let buffer = StrataLock(Buffer())
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
        record([TraceEvent(name: "process_name", phase: .metadata, time: 0, pid: processID, track: 0, arguments: ["name": .text("Strata")])])
    }

    /// Nanoseconds since the recording started.
    func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds &- origin }

    /// The process number written in every event.
    var pid: Int32 { processID }

    /// Appends `events`; the first event on a track not seen before is preceded by its name
    /// (`name()` is asked only then).
    func record(_ events: [TraceEvent], naming track: TraceTrack? = nil, _ name: () -> String = { "" }) {
        var full: [TraceEvent]?
        buffer.withLock { buffer in
            guard buffer.recorded + events.count <= maximumEvents else {
                buffer.dropped += events.count
                return
            }
            if let track, buffer.namedTracks.insert(track.id).inserted {
                buffer.events.append(TraceEvent(name: "thread_name", phase: .metadata, time: 0, pid: processID, track: track.id, arguments: ["name": .text(name())]))
                buffer.events.append(
                    TraceEvent(name: "thread_sort_index", phase: .metadata, time: 0, pid: processID, track: track.id, arguments: ["sort_index": .number(track.id)]))
            }
            buffer.events += events
            buffer.recorded += events.count
            if buffer.events.count >= Self.chunkSize {
                full = buffer.events
                buffer.events = []
            }
        }
        if let full { writer.async { [self] in write(full) } }
    }

    /// Writes `events` as the next part of the `traceEvents` array and appends it to the file.
    private func write(_ events: [TraceEvent]) {
        guard !events.isEmpty else { return }
        output.withLock { output in
            guard let handle = output.handle, output.error == nil else { return }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(events.count * 160)
            for event in events {
                if output.wroteEvent || !bytes.isEmpty { bytes.append(UInt8(ascii: ",")) }
                event.appendJSON(to: &bytes)
            }
            do {
                try handle.write(contentsOf: bytes)
                output.wroteEvent = true
            } catch {
                output.error = error
            }
        }
    }

    /// Writes what is left, closes the JSON object (with the count of events dropped over the
    /// limit) and the file. Throws the first write error of the recording.
    func finish() throws {
        let (rest, dropped) = buffer.withLock { buffer in
            let rest = buffer.events
            buffer.events = []
            return (rest, buffer.dropped)
        }
        writer.sync { write(rest) }
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
