/// The parsed arguments of `strata generate`.
struct GenerateArguments: Equatable {
    /// The `.xcdatamodeld`, `.xcdatamodel` or `contents` file.
    var model: String
    /// The folder the files go into.
    var output: String
    /// The access level of the generated declarations.
    var accessLevel: ModelCodeGenerator.AccessLevel = .public
    /// Whether to write one `<Model>+Entities.swift` instead of two files per entity.
    var combined = false
    /// Classes the target declares itself (left out of a combined file).
    var userClasses: Set<String> = []

    /// A problem with the command line, shown with the usage.
    struct UsageError: Error, Equatable {
        let message: String
    }

    /// Parses the arguments after `generate`. Throws a ``UsageError`` naming the first problem.
    static func parse(_ arguments: [String]) throws -> GenerateArguments {
        var model: String?
        var output: String?
        var parsed = GenerateArguments(model: "", output: "")
        var index = 0
        func value(after option: String) throws -> String {
            index += 1
            guard index < arguments.count, !arguments[index].hasPrefix("--") else { throw UsageError(message: "\(option) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--output", "-o":
                guard output == nil else { throw UsageError(message: "--output is given twice") }
                output = try value(after: argument)
            case "--access-level":
                let level = try value(after: argument)
                guard let access = ModelCodeGenerator.AccessLevel(rawValue: level) else {
                    throw UsageError(message: "--access-level must be public or internal, not '\(level)'")
                }
                parsed.accessLevel = access
            case "--combined":
                parsed.combined = true
            case "--user-class":
                parsed.userClasses.insert(try value(after: argument))
            default:
                guard !argument.hasPrefix("-") else { throw UsageError(message: "unknown option '\(argument)'") }
                guard model == nil else { throw UsageError(message: "one model at a time: '\(model ?? "")' and '\(argument)' given") }
                model = argument
            }
            index += 1
        }
        guard let model else { throw UsageError(message: "no model file given") }
        guard let output else { throw UsageError(message: "no --output folder given") }
        parsed.model = model
        parsed.output = output
        return parsed
    }
}
