import Foundation

/// One argument value of a traced point: text or a whole number.
enum TraceValue: Sendable {
    /// Text that recurs (SQL, names): numbered once per recording.
    case text(String)
    /// Text that seldom recurs (an error's description): written once and forgotten.
    case message(String)
    case number(Int)
}

/// One argument of a trace event: a literal key and its value.
struct TraceArgument: Sendable {
    let key: StaticString
    let value: TraceValue

    init(_ key: StaticString, _ value: TraceValue) {
        self.key = key
        self.value = value
    }

    /// A whole-number argument.
    static func number(_ key: StaticString, _ value: Int) -> TraceArgument { TraceArgument(key, .number(value)) }

    /// A text argument (SQL, a name, a path): texts that recur are numbered once.
    static func text(_ key: StaticString, _ value: String) -> TraceArgument { TraceArgument(key, .text(value)) }

    /// A text argument that seldom recurs (an error's description): the recording forgets it
    /// once it is written, so that such texts do not accumulate.
    static func message(_ key: StaticString, _ value: String) -> TraceArgument { TraceArgument(key, .message(value)) }
}

/// The arguments of one event, at most ``capacity``, kept inline (an array per event was a
/// heap block made on the recording thread and freed on the writer's). No traced point has more
/// than three, plus an `error` when it throws; arguments past the capacity are not kept.
struct TraceArgumentList<Argument: Sendable>: Sendable {
    static var capacity: Int { 4 }

    private var slots: (Argument?, Argument?, Argument?, Argument?) = (nil, nil, nil, nil)
    /// How many arguments are kept.
    private(set) var count = 0

    /// No arguments.
    init() {}

    var isEmpty: Bool { count == 0 }

    /// Adds `argument` after the others (nothing when ``capacity`` are kept).
    mutating func append(_ argument: Argument) {
        switch count {
        case 0: slots.0 = argument
        case 1: slots.1 = argument
        case 2: slots.2 = argument
        case 3: slots.3 = argument
        default: return
        }
        count += 1
    }

    /// Calls `body` with each argument, in order.
    func each(_ body: (Argument) -> Void) {
        if let first = slots.0 { body(first) }
        if let second = slots.1 { body(second) }
        if let third = slots.2 { body(third) }
        if let fourth = slots.3 { body(fourth) }
    }
}

/// The arguments a traced point gives its event; the event keeps them as
/// ``RecordedTraceArguments``.
typealias TraceArguments = TraceArgumentList<TraceArgument>

extension TraceArgumentList where Argument == TraceArgument {
    /// One argument.
    init(_ first: TraceArgument) {
        self.init()
        append(first)
    }

    /// Two arguments, in this order.
    init(_ first: TraceArgument, _ second: TraceArgument) {
        self.init(first)
        append(second)
    }

    /// Three arguments, in this order.
    init(_ first: TraceArgument, _ second: TraceArgument, _ third: TraceArgument) {
        self.init(first, second)
        append(third)
    }
}

/// A text of a recording (an SQL statement, an entity's name) by its number in the recording's
/// ``TraceTextTable``: an event keeps numbers, not strings, so that recording one retains no
/// string shared with other threads and the writer copies each text's JSON prepared once.
struct TraceText: Sendable {
    let id: UInt32
    /// A message: used by one event only, so the writer forgets it once written.
    var isMessage = false
}

/// One argument as an event keeps it: its text by number.
struct RecordedTraceArgument: Sendable {
    enum Value: Sendable {
        case text(TraceText)
        case number(Int)
    }

    let key: StaticString
    let value: Value
}

/// The arguments of one event, as ``TraceArguments`` with texts by number. Plain data: copying
/// an event copies bytes, with no reference counting.
typealias RecordedTraceArguments = TraceArgumentList<RecordedTraceArgument>

extension TraceArgumentList where Argument == RecordedTraceArgument {
    /// `arguments` with each text numbered by `number` and each message by `numberMessage`.
    init(_ arguments: TraceArguments, numbering number: (String) -> TraceText, numberingMessage numberMessage: (String) -> TraceText) {
        self.init()
        arguments.each { argument in
            switch argument.value {
            case .text(let text): append(RecordedTraceArgument(key: argument.key, value: .text(number(text))))
            case .message(let text): append(RecordedTraceArgument(key: argument.key, value: .text(numberMessage(text))))
            case .number(let value): append(RecordedTraceArgument(key: argument.key, value: .number(value)))
            }
        }
    }
}

/// One event of the Chrome trace-event format (the JSON that Perfetto and chrome://tracing
/// open): a complete span (`X`), the two ends of a flow arrow (`s`, `f`), or a name for a track
/// or the process (`M`). Names and keys are literals and texts are numbers, with an optional
/// `detail` (an entity's name) written after the name, so that an event is plain data: recording
/// one allocates nothing and retains nothing. Times are kept in nanoseconds since the recording
/// started and written in the format's microseconds.
struct TraceEvent: Sendable {
    /// The event's kind, the format's `ph` field.
    enum Phase: Sendable {
        case complete, flowStart, flowFinish, metadata

        var letter: UInt8 {
            switch self {
            case .complete: UInt8(ascii: "X")
            case .flowStart: UInt8(ascii: "s")
            case .flowFinish: UInt8(ascii: "f")
            case .metadata: UInt8(ascii: "M")
            }
        }
    }

    var name: StaticString
    var detail: TraceText?
    var category: StaticString?
    var phase: Phase
    var time: UInt64
    /// The span's length (complete events only).
    var duration: UInt64 = 0
    var track: Int
    /// The flow's number (flow events only).
    var id: UInt64 = 0
    var arguments = RecordedTraceArguments()
}
