import Foundation
import Strata

/// The `strata` command line: `strata generate <model> --output <folder>`. The executable only
/// forwards its arguments here and prints the result, so tests run the same code.
public enum StrataCommand {
    /// What a run printed and its exit status.
    public struct Result: Equatable, Sendable {
        /// The exit status: 0 done, 64 bad command line, 65 unreadable model, 73 output not writable.
        public let status: Int32
        /// What goes to standard output.
        public let output: String
        /// What goes to standard error.
        public let errors: String
    }

    /// The exit status of a bad command line (`EX_USAGE`).
    public static let usageStatus: Int32 = 64
    /// The exit status of a model that cannot be read (`EX_DATAERR`).
    public static let modelStatus: Int32 = 65
    /// The exit status of an output that cannot be written (`EX_CANTCREAT`).
    public static let outputStatus: Int32 = 73

    /// The help text.
    public static let usage = """
        usage: strata generate <model> --output <folder> [--access-level public|internal] [--combined] [--user-class <Class>]…

        Writes typed ManagedObject subclasses for the entities of a Core Data model file
        (.xcdatamodeld bundle, .xcdatamodel version or contents file) that name a class of their own:

          <Class>+Class.swift       the class you own; written only if it does not exist yet
          <Class>+Properties.swift  its generated base class: @Attribute and @Relationship properties,
                                    fetchRequest(), to-many accessors, key-path table; rewritten
                                    whenever the model changes it

        Options:
          -o, --output <folder>   where the files go (created when missing)
          --access-level <level>  public (the default, as Xcode) or internal
          --combined              one <Model>+Entities.swift with every entity (the build plugin's form)
          --user-class <Class>    with --combined: leave out <Class>, which the target declares itself
          -h, --help              this text
        """

    /// Runs the command with `arguments` (without the program name).
    public static func run(_ arguments: [String]) -> Result {
        guard let command = arguments.first, !["-h", "--help", "help"].contains(command) else {
            return Result(status: arguments.isEmpty ? usageStatus : 0, output: arguments.isEmpty ? "" : usage + "\n", errors: arguments.isEmpty ? usage + "\n" : "")
        }
        guard command == "generate" else {
            return usageError("unknown command '\(command)'")
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains(where: { ["-h", "--help"].contains($0) }) { return Result(status: 0, output: usage + "\n", errors: "") }
        let parsed: GenerateArguments
        do {
            parsed = try GenerateArguments.parse(rest)
        } catch let error as GenerateArguments.UsageError {
            return usageError(error.message)
        } catch {
            return usageError("\(error)")
        }
        return generate(parsed)
    }

    private static func usageError(_ message: String) -> Result {
        Result(status: usageStatus, output: "", errors: "strata: \(message)\n\n\(usage)\n")
    }

    private static func generate(_ arguments: GenerateArguments) -> Result {
        let modelURL = URL(fileURLWithPath: arguments.model)
        let model: ManagedObjectModel
        do {
            model = try ManagedObjectModel(contentsOf: modelURL)
        } catch {
            return Result(status: modelStatus, output: "", errors: "strata: cannot read the model: \(error)\n")
        }
        let modelName = displayName(of: modelURL)
        let generator = ModelCodeGenerator(accessLevel: arguments.accessLevel)
        let files =
            arguments.combined
            ? [generator.combinedFile(for: model, modelName: modelName, userClasses: arguments.userClasses)]
            : generator.files(for: model, modelName: modelName)
        let outcomes: [(name: String, outcome: GeneratedFileWriter.Outcome)]
        do {
            outcomes = try GeneratedFileWriter(directory: URL(fileURLWithPath: arguments.output)).write(files)
        } catch {
            return Result(status: outputStatus, output: "", errors: "strata: cannot write into '\(arguments.output)': \(error)\n")
        }
        var text = ""
        for (name, outcome) in outcomes {
            switch outcome {
            case .created: text += "created   \(name)\n"
            case .updated: text += "updated   \(name)\n"
            case .unchanged: text += "unchanged \(name)\n"
            }
        }
        if files.isEmpty { text += "no entity of \(modelName) names a class of its own (representedClassName): nothing to generate\n" }
        return Result(status: 0, output: text, errors: "")
    }

    /// `Model.xcdatamodeld` for a bundle or version, the version folder's name for a `contents` file.
    private static func displayName(of url: URL) -> String {
        let standardized = url.standardizedFileURL
        if standardized.lastPathComponent == "contents" { return standardized.deletingLastPathComponent().lastPathComponent }
        return standardized.lastPathComponent
    }
}
