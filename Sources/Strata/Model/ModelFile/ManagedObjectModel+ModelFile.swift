import Foundation

/// Reading Xcode model files (`.xcdatamodeld` bundles and `.xcdatamodel` versions).
extension ManagedObjectModel {
    /// Reads the model at `url`: a `.xcdatamodeld` bundle (its current version, named by the
    /// bundle's `.xccurrentversion`; without one, the bundle's only version), one `.xcdatamodel`
    /// version directory, or a version's `contents` XML file itself (Core Data's
    /// `NSManagedObjectModel(contentsOf:)`, which reads the compiled `.momd`/`.mom` instead).
    ///
    /// Every entity's objects are `ManagedObject`s; to map `representedClassName` to your
    /// subclasses use `init(contentsOf:managedObjectClasses:)`. The model is checked as
    /// ``checkModel()`` does, except that value transformers may be registered later (before the
    /// model is first used by a coordinator). A missing or malformed file, an unknown attribute
    /// type, a missing destination entity, a duplicate name or an inconsistent model throws a
    /// ``StrataError`` (code 134060) whose message and ``StrataError/url`` name the file and
    /// whose ``StrataError/line`` and message name the line and element. Reads the file on the
    /// calling thread; callable from any thread. See docs/models-and-migration.md.
    public convenience init(contentsOf url: URL) throws {
        let file = try ModelFileLocation.contentsFile(for: url)
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ModelFileError.make("The file cannot be read", file: file, line: 0, element: "contents")
        }
        try self.init(modelFileData: data, file: file)
        // A bundle's versions are the candidate source models of a migration, read only when one is needed.
        if url.pathExtension != "xcdatamodel" {
            modelFileVersionURLs = ModelFileLocation.versions(inBundle: url)
        }
    }

    /// The models of every version of the bundle this model was read from, read now (versions
    /// that cannot be read are left out); empty for a model not read from a bundle. The
    /// candidate source models of a lightweight migration (Stores/SQLite/SQLiteStore+Migration.swift).
    func modelFileVersions() -> [ManagedObjectModel] {
        modelFileVersionURLs.compactMap { try? ManagedObjectModel(contentsOf: $0) }
    }

    /// Reads a model from the bytes of a `contents` file; `file` only names it in errors. What
    /// ``init(contentsOf:)`` does once it has read the file; `package` for the model-file fuzzer
    /// (Fuzz/ModelFileFuzzer), which calls it without the file system.
    package convenience init(modelFileData data: Data, file: URL) throws {
        self.init()
        let root = try ModelXMLTree.parse(data, file: file)
        let contents = try ModelFileBuilder(file: file).build(root)
        entities = contents.entities
        versionIdentifiers = contents.versionIdentifiers
        userInfo = contents.userInfo
        let byName = entitiesByName
        for (name, members) in contents.configurations {
            setEntities(members.compactMap { byName[$0] }, forConfigurationName: name)
        }
        for (name, request) in contents.templates {
            setTemplate(FetchRequestTemplate(request: request), forName: name)
        }
        do {
            try checkModel(checksTransformers: false)
        } catch var error as StrataError {
            error.message = "Model file \(file.path): " + error.message
            error.url = file
            throw error
        }
    }
}
