import Foundation
import StrataLocks
import Synchronization

/// A managed object model: the entities of an app and how they relate (Core Data's
/// `NSManagedObjectModel`).
///
/// Build it in code, check it with ``checkModel()``, and hand it to a coordinator or container.
/// The first coordinator that uses it checks and freezes it: from then on it is immutable and
/// may be shared by any number of coordinators and read from any queue.
public final class ManagedObjectModel: @unchecked Sendable {
    // @unchecked Sendable: mutable only before `freeze()`; the compiled facts are published once,
    // atomically, in `frozenState`.
    private var _entities: [EntityDescription] = []
    private var _configurations: [String: [String]] = [:]
    private var _fetchRequestTemplates: [String: FetchRequestTemplate] = [:]
    private var _versionIdentifiers: Set<String> = []
    private var _userInfo: [String: any Sendable] = [:]
    /// The `.xcdatamodel` versions of the bundle the model was read from (set by
    /// `init(contentsOf:)`; empty for a model built in code): the source models lightweight
    /// migration tries (Model/ModelFile/ManagedObjectModel+ModelFile.swift).
    var modelFileVersionURLs: [URL] = []
    /// Set once by `freeze()` and never changed: read without a lock (entity lookups by code
    /// and class run for every fetched row and every inserted object). The model owns the
    /// state through the retain `freeze()` took and `deinit` gives back; a load is one atomic
    /// read (an `AtomicLazyReference` load was not specialized here: it instantiated generic
    /// metadata and retained the state on every lookup).
    private let frozenState = Atomic<Unmanaged<FrozenState>?>(nil)

    /// What freezing compiled: lookups of entities by name, code and class.
    final class FrozenState: @unchecked Sendable {
        // @unchecked Sendable: immutable; entities are frozen with the model.
        let entitiesByName: [String: EntityDescription]
        let entitiesByCode: [Int64: EntityDescription]
        /// `entitiesByCode` as an array indexed by code (codes are 1…n): every decoded row
        /// looks its entity up by code, and an index costs less than hashing.
        let entitiesIndexedByCode: ContiguousArray<EntityDescription?>
        let classToEntity: [ObjectIdentifier: EntityDescription]
        /// Whether any entity has a transient relationship.
        let hasTransientRelationships: Bool
        /// Each entity's version hash by name, the model's, and the model's in hex: a store
        /// checks them every time it is opened, and they cannot change once the model is frozen.
        /// Kept as byte arrays, not `Data`: LeakSanitizer cannot follow `Data`'s reference to its
        /// bytes, so the fuzzers (`Fuzz/run-fuzzer.sh`) would report a frozen model's hashes as
        /// leaked at exit.
        let entityVersionHashBytes: [String: [UInt8]]
        let versionHashBytes: [UInt8]
        let versionHashHex: String

        init(
            entitiesByName: [String: EntityDescription], entitiesByCode: [Int64: EntityDescription], classToEntity: [ObjectIdentifier: EntityDescription],
            hasTransientRelationships: Bool, entityVersionHashesByName: [String: Data], versionHash: Data
        ) {
            self.hasTransientRelationships = hasTransientRelationships
            self.entityVersionHashBytes = entityVersionHashesByName.mapValues { [UInt8]($0) }
            self.versionHashBytes = [UInt8](versionHash)
            self.versionHashHex = versionHash.hexString
            self.entitiesByName = entitiesByName
            self.entitiesByCode = entitiesByCode
            let largestCode = entitiesByCode.keys.max() ?? 0
            var indexed = ContiguousArray<EntityDescription?>()
            if largestCode >= 0 && largestCode < 65_536 {
                indexed = ContiguousArray(repeating: nil, count: Int(largestCode) + 1)
                for (code, entity) in entitiesByCode where code >= 0 { indexed[Int(code)] = entity }
            }
            self.entitiesIndexedByCode = indexed
            self.classToEntity = classToEntity
        }
    }

    private var frozen: FrozenState? { frozenState.load(ordering: .acquiring)?.takeUnretainedValue() }

    /// Creates a model with `entities`; sub-entities reachable through `subentities` are added too.
    public init(entities: [EntityDescription]) {
        self.entities = entities
    }

    /// Creates an empty model.
    public init() {}

    deinit {
        frozenState.load(ordering: .acquiring)?.release()
        // Clear the unowned references that point here (see `EntityDescription.modelReference`).
        let me = ObjectIdentifier(self)
        for entity in _entities where entity.modelReference.map(ObjectIdentifier.init) == me { entity.modelReference = nil }
    }

    /// Whether a coordinator has started using the model (it can no longer be edited).
    public var isFrozen: Bool { frozen != nil }

    private func mutate(_ what: String, _ change: () -> Void) {
        if isFrozen {
            writeToStandardError("Strata: ignored change of \(what) of a model that is in use and can no longer be edited")
            return
        }
        change()
    }

    /// All entities of the model, sub-entities included.
    public var entities: [EntityDescription] {
        get { _entities }
        set {
            mutate("entities") {
                var seen = Set<ObjectIdentifier>()
                var all: [EntityDescription] = []
                func add(_ entity: EntityDescription) {
                    guard seen.insert(ObjectIdentifier(entity)).inserted else { return }
                    all.append(entity)
                    entity.managedObjectModel = self
                    for sub in entity.subentities { add(sub) }
                }
                for entity in newValue { add(entity) }
                let me = ObjectIdentifier(self)
                for old in _entities where !seen.contains(ObjectIdentifier(old)) && old.modelReference.map(ObjectIdentifier.init) == me { old.modelReference = nil }
                _entities = all
            }
        }
    }

    /// The entities by name.
    public var entitiesByName: [String: EntityDescription] {
        if let frozen = frozen?.entitiesByName { return frozen }
        var result: [String: EntityDescription] = [:]
        for entity in _entities where result[entity.name] == nil { result[entity.name] = entity }
        return result
    }

    /// Free-form identifiers of this model version (from a model file: its "Identifier" in
    /// Xcode, `userDefinedModelVersionIdentifier`). Not part of the version hash, as in Core
    /// Data. Set before the model is used; read from any queue.
    public var versionIdentifiers: Set<String> {
        get { _versionIdentifiers }
        set { mutate("versionIdentifiers") { _versionIdentifiers = newValue } }
    }

    /// Free-form information for the app (a model file's model-level `userInfo`). Not part of
    /// the version hash. Set before the model is used; read from any queue.
    public var userInfo: [String: any Sendable] {
        get { _userInfo }
        set { mutate("userInfo") { _userInfo = newValue } }
    }

    /// Each entity's version hash (``EntityDescription/versionHash``) by entity name; stores
    /// record it in their metadata. Any queue once the model is no longer edited.
    public var entityVersionHashesByName: [String: Data] {
        frozen.map { $0.entityVersionHashBytes.mapValues { Data($0) } } ?? computedEntityVersionHashes()
    }

    /// A stable hash of the whole model's storage shape: equal hashes mean a store made with one
    /// model can be opened with the other. Any queue once the model is no longer edited.
    public var versionHash: Data {
        frozen.map { Data($0.versionHashBytes) } ?? Self.versionHash(ofEntityHashes: computedEntityVersionHashes())
    }

    /// ``versionHash`` in lower-case hex, as stores record it (kept by a frozen model).
    var versionHashHex: String { frozen?.versionHashHex ?? versionHash.hexString }

    /// ``entityVersionHashesByName`` computed from the entities (a frozen model keeps it).
    private func computedEntityVersionHashes() -> [String: Data] {
        var result: [String: Data] = [:]
        for entity in _entities { result[entity.name] = entity.versionHash }
        return result
    }

    /// ``versionHash`` of a model whose entities have `entityHashes`.
    private static func versionHash(ofEntityHashes entityHashes: [String: Data]) -> Data {
        var hash = StableHash()
        hash.combine("model")
        for (name, entityHash) in entityHashes.sorted(by: { $0.key < $1.key }) {
            hash.combine(name)
            hash.combine(entityHash)
        }
        return hash.data
    }

    /// The model's version checksum (Core Data's `versionChecksum`): ``versionHash`` in base64.
    /// Equal checksums mean equal entity version hashes. Staged migration names model versions
    /// by it. Not Core Data's value for the same model (see ``EntityDescription/versionHash``).
    /// Any queue.
    public var versionChecksum: String { versionHash.base64EncodedString() }

    // MARK: Configurations

    /// The names of the model's configurations (groups of entities that live in one store).
    public var configurations: [String] { _configurations.keys.sorted() }

    /// The entities of a configuration; `nil` or an unknown name gives all entities.
    public func entities(forConfigurationName name: String?) -> [EntityDescription] {
        guard let name, let names = _configurations[name] else { return _entities }
        let byName = entitiesByName
        return names.compactMap { byName[$0] }
    }

    /// Sets the entities of a configuration.
    public func setEntities(_ entities: [EntityDescription], forConfigurationName name: String) {
        mutate("configurations") { _configurations[name] = entities.map(\.name) }
    }

    // MARK: Fetch request templates

    /// Stores (or with `nil`, removes) a template; the typed API is in
    /// `Objects/ManagedObjectModel+FetchRequests.swift`.
    func setTemplate(_ template: FetchRequestTemplate?, forName name: String) {
        mutate("fetchRequestTemplates") { _fetchRequestTemplates[name] = template }
    }

    /// The template stored under `name`.
    func template(named name: String) -> FetchRequestTemplate? { _fetchRequestTemplates[name] }

    /// The names of the stored templates.
    public var fetchRequestTemplateNames: [String] { _fetchRequestTemplates.keys.sorted() }

    // MARK: Lookup

    /// The entity whose class is exactly `type`, if any (the typed API is
    /// `entity(for:)` in `Objects/ManagedObjectModel+FetchRequests.swift`). Callable from any queue.
    func entity(forClass type: AnyClass) -> EntityDescription? {
        let key = ObjectIdentifier(type)
        if let frozen { return frozen.classToEntity[key] }
        return _entities.first { $0.managedObjectClassStorage.map(ObjectIdentifier.init) == key }
    }

    /// Whether any entity of the frozen model has a transient relationship (false before the
    /// model is frozen). Lets a save skip looking for transient values in models without any.
    var hasTransientRelationships: Bool { frozen?.hasTransientRelationships ?? false }

    func entity(forCode code: Int64) -> EntityDescription? {
        guard let frozen else { return nil }
        if code >= 0 && code < frozen.entitiesIndexedByCode.count { return frozen.entitiesIndexedByCode[Int(code)] }
        return frozen.entitiesByCode[code]
    }

    // MARK: Checking and freezing

    /// Checks the model and throws one ``StrataError`` (code 134060) listing every problem found:
    /// duplicate or reserved names, unusable types, defaults that do not fit their type, unknown
    /// transformers, broken relationships and inverses, inheritance cycles, bad constraints.
    public func checkModel() throws {
        try checkModel(checksTransformers: true)
    }

    /// ``checkModel()``, optionally without requiring the value transformers to be registered
    /// yet (a model file is read before its app registers them).
    func checkModel(checksTransformers: Bool) throws {
        let problems = ModelChecker(model: self, checksTransformers: checksTransformers).problems()
        guard problems.isEmpty else {
            throw StrataError(
                code: StrataError.Code.coreData,
                message: "The managed object model has \(problems.count) problem(s):\n" + problems.map { "  • " + $0.message }.joined(separator: "\n"),
                underlyingErrors: problems)
        }
    }

    /// Checks the model once and makes it immutable; later calls do nothing.
    func freeze() throws {
        if isFrozen { return }
        try checkModel()
        let layouts = EntityLayout.build(for: _entities)
        var byName: [String: EntityDescription] = [:]
        var byCode: [Int64: EntityDescription] = [:]
        var byClass: [ObjectIdentifier: EntityDescription] = [:]
        for entity in _entities {
            entity.layoutStorage = layouts[ObjectIdentifier(entity)]
            byName[entity.name] = entity
            if let layout = entity.layoutStorage { byCode[layout.code] = entity }
            if let type = entity.managedObjectClassStorage {
                // The most specific entity wins when several share a class.
                let key = ObjectIdentifier(type)
                if byClass[key] == nil { byClass[key] = entity }
            }
        }
        let entityHashes = computedEntityVersionHashes()
        let state = Unmanaged.passRetained(
            FrozenState(
                entitiesByName: byName, entitiesByCode: byCode, classToEntity: byClass,
                hasTransientRelationships: layouts.values.contains { $0.hasTransientRelationships },
                entityVersionHashesByName: entityHashes, versionHash: Self.versionHash(ofEntityHashes: entityHashes)))
        // The first freeze publishes; a racing one gives its copy back.
        if !frozenState.compareExchange(expected: nil, desired: state, ordering: .acquiringAndReleasing).exchanged { state.release() }
    }
}
