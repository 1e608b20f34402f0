// StrataModelCodegen: a build-tool plugin that compiles typed ManagedObject subclasses for each
// Core Data model file (.xcdatamodeld bundle or standalone .xcdatamodel) in a target's folder.
//
// For each model it runs `strata generate <model> --combined --output <work dir>/<Model>` and
// compiles the one file that writes, `<Model>+Entities.swift` (a build command must name its
// outputs before it runs, and the entities are known only once the model is read, hence one file
// per model). The file is regenerated whenever a file of the model changes. A class the target
// declares itself, in a file named `<Class>+Class.swift`, is left out of it (`--user-class`), so
// the target can own a class (overrides, stored properties) while its properties stay generated.

import Foundation
import PackagePlugin

@main
struct StrataModelCodegen: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "strata")
        let userClasses = target.sourceFiles(withSuffix: "+Class.swift").map { file in
            String(file.url.lastPathComponent.dropLast("+Class.swift".count))
        }
        return modelFiles(in: target.directoryURL).map { model in
            let baseName = model.deletingPathExtension().lastPathComponent
            let output = context.pluginWorkDirectoryURL.appendingPathComponent(baseName)
            var arguments = ["generate", model.path, "--output", output.path, "--combined"]
            for name in userClasses.sorted() { arguments += ["--user-class", name] }
            return .buildCommand(
                displayName: "Generating ManagedObject classes for \(model.lastPathComponent)",
                executable: tool.url,
                arguments: arguments,
                inputFiles: files(in: model),
                outputFiles: [output.appendingPathComponent("\(baseName)+Entities.swift")]
            )
        }
    }

    /// The `.xcdatamodeld` bundles and the `.xcdatamodel` folders outside a bundle under `root`,
    /// sorted by path.
    private func modelFiles(in root: URL) -> [URL] {
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        var found: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if ["xcdatamodeld", "xcdatamodel"].contains(url.pathExtension) {
                found.append(url)
                enumerator?.skipDescendants()
            }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// Every file of a model (its `contents` files and `.xccurrentversion`), the command's inputs.
    private func files(in model: URL) -> [URL] {
        let enumerator = FileManager.default.enumerator(at: model, includingPropertiesForKeys: [.isRegularFileKey])
        var found: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }
}
