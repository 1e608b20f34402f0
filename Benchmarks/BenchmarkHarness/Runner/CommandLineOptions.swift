import Foundation

/// A command-line mistake; the runner prints it with the usage and exits with 1.
public struct CommandLineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// The parsed command line of a benchmark executable.
public struct CommandLineOptions: Sendable, Equatable {
    /// What to do.
    public enum Command: Sendable, Equatable {
        /// Run the selected benchmarks and print the report.
        case run
        /// List the selected benchmarks, pairs and relations.
        case list
        /// Print the usage.
        case help
        /// Run, then store the results as the named baseline.
        case baselineUpdate(String)
        /// Run, then compare with the named baseline.
        case baselineCompare(String)
        /// Run nothing: load a JSON report written earlier and render it (`--from-json PATH`).
        case render(String)
    }

    /// Report formats.
    public enum OutputFormat: String, Sendable, CaseIterable {
        /// Aligned plain-text tables.
        case text
        /// GitHub-flavoured Markdown.
        case markdown
        /// JSON (the baseline format).
        case json
    }

    /// The command.
    public var command: Command = .run
    /// Regular expressions selecting benchmarks, pairs or relations by name (any match selects).
    public var filters: [String] = []
    /// Whether to run the short variant.
    public var quick = false
    /// The report format.
    public var format: OutputFormat = .text
    /// A file that also receives the report.
    public var outputPath: String?
    /// A file that receives the HTML report with its charts (``HTMLReport``).
    public var htmlPath: String?
    /// A directory that receives the main charts as standalone SVG files.
    public var svgDirectory: String?
    /// Where baselines are stored.
    public var baselineDirectory: String = BaselineStore.defaultDirectory
    /// Whether missed targets make the exit code 2.
    public var failOnMissedTargets = false

    /// Options with every default (a plain full run).
    public init() {}

    /// The usage text.
    public static func usage(executable: String = "StrataBenchmarks") -> String {
        """
        USAGE: \(executable) [baseline update NAME | baseline compare NAME] [options]

        OPTIONS:
          --filter REGEX            Run only benchmarks, pairs or relations whose name matches (repeatable).
          --quick                   Few iterations and small data sets (context.isQuick).
          --format text|markdown|json
                                    Report format (default: text).
          --output PATH             Also write the report to PATH.
          --html PATH               Also write an HTML report with SVG charts to PATH
                                    (make bench: .build/benchmark-report.html).
          --svg-dir DIR             Also write the main charts as SVG files into DIR.
          --from-json PATH          Run nothing: render the JSON report at PATH (with
                                    --format, --output, --html, --svg-dir).
          --baseline-dir DIR        Baseline directory (default: \(BaselineStore.defaultDirectory)).
          --fail-on-missed-targets  Exit with 2 when a target is missed.
          --list                    List benchmarks, pairs and relations, then exit.
          -h, --help                Show this help.

        COMMANDS:
          baseline update NAME      Run, then store the results in DIR/NAME.json.
          baseline compare NAME     Run, then compare each p50 with DIR/NAME.json.

        EXIT CODES:
          0 success (within thresholds)   1 usage error or a benchmark failed
          2 regression (or missed target with --fail-on-missed-targets)   4 improvements only
        """
    }

    /// Parses the arguments that follow the executable name.
    public static func parse(_ arguments: [String]) throws(CommandLineError) -> CommandLineOptions {
        var options = CommandLineOptions()
        var positional: [String] = []
        var listRequested = false
        var helpRequested = false
        var renderPath: String?
        var index = 0

        func value(for flag: String, inline: String?) throws(CommandLineError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw CommandLineError("\(flag) needs a value") }
            return arguments[index]
        }

        while index < arguments.count {
            let argument = arguments[index]
            var flag = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                flag = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            switch flag {
            case "--filter":
                let pattern = try value(for: flag, inline: inline)
                guard (try? NSRegularExpression(pattern: pattern)) != nil else {
                    throw CommandLineError("invalid regular expression for --filter: \(pattern)")
                }
                options.filters.append(pattern)
            case "--quick":
                try noValue(flag, inline)
                options.quick = true
            case "--format":
                let name = try value(for: flag, inline: inline)
                guard let format = OutputFormat(rawValue: name.lowercased()) else {
                    throw CommandLineError("unknown format \"\(name)\"; use text, markdown or json")
                }
                options.format = format
            case "--output":
                let path = try value(for: flag, inline: inline)
                guard !path.isEmpty else { throw CommandLineError("--output needs a non-empty path") }
                options.outputPath = path
            case "--html":
                options.htmlPath = try nonEmpty(flag, value(for: flag, inline: inline))
            case "--svg-dir":
                options.svgDirectory = try nonEmpty(flag, value(for: flag, inline: inline))
            case "--from-json":
                renderPath = try nonEmpty(flag, value(for: flag, inline: inline))
            case "--baseline-dir":
                let directory = try value(for: flag, inline: inline)
                guard !directory.isEmpty else { throw CommandLineError("--baseline-dir needs a non-empty path") }
                options.baselineDirectory = directory
            case "--fail-on-missed-targets":
                try noValue(flag, inline)
                options.failOnMissedTargets = true
            case "--list":
                try noValue(flag, inline)
                listRequested = true
            case "--help", "-h":
                helpRequested = true
            default:
                if argument.hasPrefix("-") {
                    throw CommandLineError("unknown option \(argument)")
                }
                positional.append(argument)
            }
            index += 1
        }

        if helpRequested {
            options.command = .help
            return options
        }
        options.command = try command(from: positional, list: listRequested)
        if let renderPath {
            guard options.command == .run else { throw CommandLineError("--from-json cannot be combined with --list or a baseline command") }
            options.command = .render(renderPath)
        }
        return options
    }

    private static func nonEmpty(_ flag: String, _ value: String) throws(CommandLineError) -> String {
        guard !value.isEmpty else { throw CommandLineError("\(flag) needs a non-empty path") }
        return value
    }

    private static func noValue(_ flag: String, _ inline: String?) throws(CommandLineError) {
        if inline != nil { throw CommandLineError("\(flag) takes no value") }
    }

    private static func command(from positional: [String], list: Bool) throws(CommandLineError) -> Command {
        if positional.isEmpty { return list ? .list : .run }
        guard positional[0] == "baseline" else {
            throw CommandLineError("unexpected argument \"\(positional[0])\"")
        }
        guard positional.count == 3 else {
            throw CommandLineError("expected `baseline update NAME` or `baseline compare NAME`")
        }
        let name = positional[2]
        guard BaselineStore.isValidName(name) else { throw CommandLineError(BaselineError.invalidName(name).description) }
        guard !list else { throw CommandLineError("--list cannot be combined with a baseline command") }
        switch positional[1] {
        case "update": return .baselineUpdate(name)
        case "compare": return .baselineCompare(name)
        default: throw CommandLineError("unknown baseline action \"\(positional[1])\"; use update or compare")
        }
    }
}
