import Foundation

/// `--name value` and `--flag` command-line options.
public struct Arguments: Sendable {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []
    /// Words that are not options, in order.
    public private(set) var positional: [String] = []

    /// Parses `arguments` (without the executable). An option followed by another option or by
    /// nothing is a flag.
    public init(_ arguments: [String]) {
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word.hasPrefix("--") {
                let name = String(word.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    values[String(name[..<equals])] = String(name[name.index(after: equals)...])
                } else if index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") {
                    values[name] = arguments[index + 1]
                    index += 1
                } else {
                    flags.insert(name)
                }
            } else {
                positional.append(word)
            }
            index += 1
        }
    }

    /// The value of `--name`, if given.
    public func string(_ name: String) -> String? { values[name] }
    /// The value of `--name` as an integer, or `defaultValue`.
    public func int(_ name: String, _ defaultValue: Int) -> Int { values[name].flatMap { Int($0) } ?? defaultValue }
    /// The value of `--name` as a number, or `defaultValue`.
    public func double(_ name: String, _ defaultValue: Double) -> Double { values[name].flatMap { Double($0) } ?? defaultValue }
    /// The value of `--name` as an unsigned integer, or `defaultValue`.
    public func uint64(_ name: String, _ defaultValue: UInt64) -> UInt64 { values[name].flatMap { UInt64($0) } ?? defaultValue }
    /// Whether `--name` was given as a flag.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// A recipe book from `--seed --accounts --max-transfers --payload --route`.
    public func recipeBook() -> RecipeBook {
        let scale: SaveRecipe.PayloadScale
        switch string("payload") {
        case "large": scale = .large
        case "none": scale = .none
        default: scale = .mixed
        }
        return RecipeBook(
            seed: uint64("seed", 1), accounts: int("accounts", 32), payloadScale: scale,
            route: string("route").flatMap(SaveRecipe.Route.init(rawValue:)), maximumTransfers: int("max-transfers", 6))
    }

    /// Store settings from `--journal --sync --timeout`.
    public func storeSettings(vfsName: String? = nil) -> StoreSettings {
        var settings = StoreSettings(
            journal: JournalMode(rawValue: (string("journal") ?? "WAL").uppercased()) ?? .wal,
            synchronous: string("sync"), vfsName: vfsName, timeout: string("timeout").flatMap(Double.init))
        settings.historyTracking = flag("history")
        return settings
    }
}
