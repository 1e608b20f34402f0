import Foundation

/// A property of an entity: the common superclass of ``AttributeDescription``,
/// ``RelationshipDescription``, ``FetchedPropertyDescription`` and ``ExpressionDescription``
/// (Core Data's `NSPropertyDescription`).
///
/// Descriptions are configured from one thread before the model is used; once a coordinator
/// uses the model it is frozen, and setters print a warning and change nothing (Core Data
/// raises an exception there). Frozen descriptions are immutable and safe to read from any queue.
public class PropertyDescription: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: mutable only before the model freezes (enforced by `mutate`), read-only after.
    private var _name: String
    private var _isOptional: Bool
    private var _isTransient: Bool = false
    private var _userInfo: [String: any Sendable] = [:]
    private var _versionHashModifier: String?
    private var _renamingIdentifier: String?
    private var _isIndexed = false
    private var _validationPredicates: [ObjectPredicate] = []
    private var _validationWarnings: [String] = []
    private var _validationRules: [ValidationRule] = []

    /// The entity the property belongs to; set when it is added to an entity's `properties`.
    public internal(set) var entity: EntityDescription? {
        get { entityReference }
        set { entityReference = newValue }
    }
    /// Not `weak`: a weak reference gives its target a side table, and then every retain of the
    /// entity takes the runtime's slow path — object IDs retain their entity on every copy. The
    /// entity clears this reference when it drops the property and when it is deinitialized
    /// (`EntityDescription.deinit`), so it is never left dangling.
    unowned(unsafe) var entityReference: EntityDescription?

    init(name: String, isOptional: Bool) {
        self._name = name
        self._isOptional = isOptional
    }

    /// Applies a change unless the model is frozen (then warns and ignores it).
    func mutate(_ what: String, _ change: () -> Void) {
        if let model = entity?.managedObjectModel, model.isFrozen {
            writeToStandardError("Strata: ignored change of \(what) of property '\(_name)': the model is in use and can no longer be edited")
            return
        }
        change()
    }

    /// The property's name, unique within its entity and the entity's ancestors.
    public var name: String {
        get { _name }
        set { mutate("name") { _name = newValue } }
    }

    /// Whether the property may be nil (or, for to-many relationships, empty) when saved.
    public var isOptional: Bool {
        get { _isOptional }
        set { mutate("isOptional") { _isOptional = newValue } }
    }

    /// Whether the property is tracked in memory but never stored.
    public var isTransient: Bool {
        get { _isTransient }
        set { mutate("isTransient") { _isTransient = newValue } }
    }

    /// Free-form information for the app.
    public var userInfo: [String: any Sendable] {
        get { _userInfo }
        set { mutate("userInfo") { _userInfo = newValue } }
    }

    /// A string mixed into the version hash, to force a new version without a schema change.
    public var versionHashModifier: String? {
        get { _versionHashModifier }
        set { mutate("versionHashModifier") { _versionHashModifier = newValue } }
    }

    /// Whether the store keeps an index on the property's column, so sorts and comparisons on it
    /// (and `fetchLimit` with such a sort) cost what the index allows. Indexes do not change the
    /// model's version hash: adding one to an existing store creates it when the store opens.
    public var isIndexed: Bool {
        get { _isIndexed }
        set { mutate("isIndexed") { _isIndexed = newValue } }
    }

    /// The name of this property in the previous model version (for migration).
    public var renamingIdentifier: String? {
        get { _renamingIdentifier }
        set { mutate("renamingIdentifier") { _renamingIdentifier = newValue } }
    }

    /// Predicates the value must satisfy at save, evaluated with the value as `SELF`; each
    /// failure reports the warning at the same index, code 1550 (Core Data's validation
    /// predicates). Not evaluated for a nil value. Example: `SELF MATCHES '[A-Z]{2}-[0-9]+'`,
    /// or `@count <= 10` on a to-many.
    public var validationPredicates: [ObjectPredicate] { _validationPredicates }

    /// The messages reported when the matching validation predicate fails.
    public var validationWarnings: [String] { _validationWarnings }

    /// Sets the validation predicates and their messages (Core Data's
    /// `setValidationPredicates(_:withValidationWarnings:)`).
    public func setValidationPredicates(_ predicates: [ObjectPredicate], withValidationWarnings warnings: [String]) {
        mutate("validationPredicates") {
            _validationPredicates = predicates
            _validationWarnings = warnings
        }
    }

    /// Closure rules the value must satisfy at save, checked after the validation predicates;
    /// each failure reports its message (code 1550). Configure before the model is used.
    public var validationRules: [ValidationRule] {
        get { _validationRules }
        set { mutate("validationRules") { _validationRules = newValue } }
    }

    /// A stable hash of what makes stored data of this property compatible: its kind, name,
    /// optionality, transience and ``versionHashModifier`` (Core Data's documented inputs), plus
    /// an attribute's type, or a relationship's destination, inverse, cardinality, order and
    /// counts. Not user info, renaming identifier, indexing, defaults or validation. Any queue.
    public var versionHash: Data {
        var hash = StableHash()
        appendVersionHashInputs(to: &hash)
        return hash.data
    }

    func appendVersionHashInputs(to hash: inout StableHash) {
        hash.combine(String(describing: Swift.type(of: self)))
        hash.combine(_name)
        hash.combine(_isOptional ? "optional" : "required")
        hash.combine(_isTransient ? "transient" : "stored")
        hash.combine(_versionHashModifier ?? "")
    }

    public var description: String { "\(Swift.type(of: self))(\(entity?.name ?? "?").\(_name))" }
}
