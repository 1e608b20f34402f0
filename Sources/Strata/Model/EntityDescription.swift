import Foundation

/// An entity: a kind of object, with its properties, its class and its place in an inheritance
/// tree (Core Data's `NSEntityDescription`).
///
/// ```swift
/// let person = EntityDescription(name: "Person", managedObjectClass: Person.self)
/// person.properties = [AttributeDescription(name: "name", type: .string)]
/// ```
/// Configure it before the model is used; once frozen it is immutable and may be read from any
/// queue.
public final class EntityDescription: EntityIdentity, @unchecked Sendable, Hashable, CustomStringConvertible {
    // @unchecked Sendable: mutable only before the model freezes (enforced by `mutate`), read-only after.
    private var _name: String
    /// The class of the entity's objects; `nil` for `ManagedObject` itself. Kept untyped here
    /// (the model does not depend on objects); `managedObjectClass` is in
    /// `Objects/EntityDescription+Class.swift`.
    var managedObjectClassStorage: AnyClass?
    private var _properties: [PropertyDescription] = []
    private var _isAbstract = false
    private var _subentities: [EntityDescription] = []
    private var _uniquenessConstraints: [[String]] = []
    private var _userInfo: [String: any Sendable] = [:]
    private var _versionHashModifier: String?
    private var _renamingIdentifier: String?
    private var _representedClassName: String?
    private var _indexes: [FetchIndexDescription] = []

    /// The entity this one inherits from; set through the parent's `subentities`.
    public internal(set) var superentity: EntityDescription? {
        get { superentityReference }
        set { superentityReference = newValue }
    }
    /// Not `weak`, for the reason given at `PropertyDescription.entityReference`: the parent
    /// clears it when it drops this entity and when it is deinitialized.
    unowned(unsafe) var superentityReference: EntityDescription?
    /// The model the entity belongs to.
    public internal(set) var managedObjectModel: ManagedObjectModel? {
        get { modelReference }
        set { modelReference = newValue }
    }
    /// Not `weak`, for the reason given at `PropertyDescription.entityReference` (every insert
    /// checks its entity's model): the model clears it when it drops the entity and when it is
    /// deinitialized.
    unowned(unsafe) var modelReference: ManagedObjectModel?

    /// Resolved slots and inheritance facts, computed when the model freezes. Read on every
    /// object access; written once, when the model freezes (or, for a detached placeholder
    /// entity, on first use): release builds skip the runtime's exclusivity checks on it.
    #if DEBUG
    var layoutStorage: EntityLayout?
    #else
    @exclusivity(unchecked) var layoutStorage: EntityLayout?
    #endif

    /// Creates an entity whose objects are instances of `ManagedObject` (see
    /// `init(name:managedObjectClass:)` for a subclass).
    public init(name: String) {
        self._name = name
        self.managedObjectClassStorage = nil
    }

    deinit {
        // Clear the unowned references that point here (see `PropertyDescription.entityReference`).
        let me = ObjectIdentifier(self)
        for property in _properties where property.entityReference.map(ObjectIdentifier.init) == me { property.entityReference = nil }
        for sub in _subentities where sub.superentityReference.map(ObjectIdentifier.init) == me { sub.superentityReference = nil }
    }

    override var identityName: String { _name }

    override func sharesKeys(with other: EntityIdentity) -> Bool {
        guard let other = other as? EntityDescription else { return false }
        return rootEntity === other.rootEntity
    }

    func mutate(_ what: String, _ change: () -> Void) {
        if let model = managedObjectModel, model.isFrozen {
            writeToStandardError("Strata: ignored change of \(what) of entity '\(_name)': the model is in use and can no longer be edited")
            return
        }
        change()
    }

    /// The entity's name, unique in its model.
    public var name: String {
        get { _name }
        set { mutate("name") { _name = newValue } }
    }

    /// The name of `managedObjectClass`.
    public var managedObjectClassName: String { managedObjectClassStorage.map { String(describing: $0) } ?? "ManagedObject" }

    /// The properties declared on this entity (not the inherited ones).
    public var properties: [PropertyDescription] {
        get { _properties }
        set {
            mutate("properties") {
                for old in _properties where old.entityReference === self { old.entityReference = nil }
                _properties = newValue
                for property in newValue { property.entity = self }
            }
        }
    }

    /// Whether the entity can have no instances of its own (only of its subentities).
    public var isAbstract: Bool {
        get { _isAbstract }
        set { mutate("isAbstract") { _isAbstract = newValue } }
    }

    /// The entities that inherit from this one.
    public var subentities: [EntityDescription] {
        get { _subentities }
        set {
            mutate("subentities") {
                for old in _subentities where old.superentity === self { old.superentity = nil }
                _subentities = newValue
                for sub in newValue { sub.superentity = self }
            }
        }
    }

    /// Sets of attribute names whose combined values must be unique among the entity's objects.
    public var uniquenessConstraints: [[String]] {
        get { _uniquenessConstraints }
        set { mutate("uniquenessConstraints") { _uniquenessConstraints = newValue } }
    }

    /// Free-form information for the app.
    public var userInfo: [String: any Sendable] {
        get { _userInfo }
        set { mutate("userInfo") { _userInfo = newValue } }
    }

    /// A string mixed into the version hash.
    public var versionHashModifier: String? {
        get { _versionHashModifier }
        set { mutate("versionHashModifier") { _versionHashModifier = newValue } }
    }

    /// The entity's name in the previous model version (for migration).
    public var renamingIdentifier: String? {
        get { _renamingIdentifier }
        set { mutate("renamingIdentifier") { _renamingIdentifier = newValue } }
    }

    /// The class name a model file gives the entity (Xcode's "Class" field, `representedClassName`,
    /// such as `Note`, `MyApp.Note` or `.Note`); `nil` for entities built in code.
    /// `ManagedObjectModel(contentsOf:managedObjectClasses:)` maps it to a Swift class. Set before
    /// the model is used; read from any queue.
    public var representedClassName: String? {
        get { _representedClassName }
        set { mutate("representedClassName") { _representedClassName = newValue } }
    }

    /// The entity's fetch indexes (Core Data's `NSEntityDescription.indexes`, Xcode's fetch
    /// indexes and compound indexes). Kept with the model and read from model files; the SQLite
    /// store creates its indexes from ``PropertyDescription/isIndexed`` only, so these do not yet
    /// create indexes of their own. Not part of the version hash (as in Core Data). Set before
    /// the model is used; read from any queue.
    public var indexes: [FetchIndexDescription] {
        get { _indexes }
        set { mutate("indexes") { _indexes = newValue } }
    }

    // MARK: Lookups (including inherited properties)

    /// All properties, inherited ones first.
    public var allProperties: [PropertyDescription] {
        if let layout = layoutStorage { return layout.allProperties }
        return ancestry.reversed().flatMap(\._properties)
    }

    /// This entity, its parent, its parent's parent… up to the root. A cycle (a broken model,
    /// reported by the model check) ends the walk instead of looping forever.
    var ancestry: [EntityDescription] {
        var chain: [EntityDescription] = []
        var seen = Set<ObjectIdentifier>()
        var current: EntityDescription? = self
        while let entity = current, seen.insert(ObjectIdentifier(entity)).inserted {
            chain.append(entity)
            current = entity.superentity
        }
        return chain
    }

    /// Every property by name, inherited ones included.
    public var propertiesByName: [String: PropertyDescription] {
        if let layout = layoutStorage { return layout.propertiesByName }
        var result: [String: PropertyDescription] = [:]
        for property in allProperties { result[property.name] = property }
        return result
    }

    /// Every attribute by name, inherited ones included.
    public var attributesByName: [String: AttributeDescription] {
        propertiesByName.compactMapValues { $0 as? AttributeDescription }
    }

    /// Every relationship by name, inherited ones included.
    public var relationshipsByName: [String: RelationshipDescription] {
        propertiesByName.compactMapValues { $0 as? RelationshipDescription }
    }

    /// The relationships whose destination is `entity` (or one of its ancestors).
    public func relationships(forDestination entity: EntityDescription) -> [RelationshipDescription] {
        allProperties.compactMap { $0 as? RelationshipDescription }.filter {
            guard let destination = $0.destinationEntity else { return false }
            return entity.isKindOf(entity: destination)
        }
    }

    /// Whether this entity is `entity` or inherits from it.
    public func isKindOf(entity: EntityDescription) -> Bool {
        var current: EntityDescription? = self
        var steps = 0
        while let candidate = current, steps < Self.maximumDepth {
            if candidate === entity { return true }
            current = candidate.superentity
            steps += 1
        }
        return false
    }

    /// The top of this entity's inheritance tree.
    public var rootEntity: EntityDescription {
        var current = self
        var steps = 0
        while let parent = current.superentity, steps < Self.maximumDepth {
            current = parent
            steps += 1
        }
        return current
    }

    /// A bound on inheritance walks, so a cyclic tree (a broken model, which the model check
    /// reports) cannot make them loop forever.
    static let maximumDepth = 1_000

    /// A stable hash of what makes stored data of this entity compatible, from the inputs Core
    /// Data documents for `NSEntityDescription.versionHash`: the name, the version hash of the
    /// superentity, whether it is abstract, the ``versionHashModifier`` and the version hashes of
    /// the properties it declares (Strata also mixes in its uniqueness constraints). User info,
    /// validation rules, default values, renaming identifiers, indexes and the class do not
    /// change it. Not byte-compatible with Core Data's SHA-256 hashes. Any queue.
    public var versionHash: Data { versionHash(depth: 0) }

    private func versionHash(depth: Int) -> Data {
        var hash = StableHash()
        hash.combine("entity")
        hash.combine(_name)
        if let parent = superentity, depth < Self.maximumDepth {
            hash.combine(parent.versionHash(depth: depth + 1))
        } else {
            hash.combine("")
        }
        hash.combine(_isAbstract ? "abstract" : "concrete")
        hash.combine(_versionHashModifier ?? "")
        for property in _properties.sorted(by: { $0.name < $1.name }) {
            hash.combine(property.versionHash)
        }
        for constraint in _uniquenessConstraints { hash.combine(constraint.joined(separator: ",")) }
        return hash.data
    }

    /// Identity: two entity descriptions are equal only when they are the same instance.
    /// Callable from any thread once the model is frozen.
    public static func == (lhs: EntityDescription, rhs: EntityDescription) -> Bool { lhs === rhs }
    /// Hashes the instance's identity, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    public var description: String { "EntityDescription(\(_name))" }
}
