import Foundation

/// A relationship from one entity to another (Core Data's `NSRelationshipDescription`).
///
/// Every relationship should name its inverse: setting one side then updates the other side in
/// memory at once. Configure it before the model is used; read it from any queue.
public final class RelationshipDescription: PropertyDescription, @unchecked Sendable {
    /// What happens to the objects at the other end when the source object is deleted.
    ///
    /// A `Sendable` value: use it on any thread.
    public enum DeleteRule: String, Sendable, Codable, CaseIterable {
        /// Leave them alone: the relationship keeps a dangling reference, as in Core Data.
        case noAction
        /// Remove the deleted object from their inverse relationship.
        case nullify
        /// Delete them too (recursively).
        case cascade
        /// Refuse the delete (a validation error at save) while the relationship is not empty.
        case deny
    }

    private var _destinationEntity: EntityDescription?
    private var _destinationEntityName: String?
    private var _inverseName: String?
    private var _isToMany: Bool
    private var _isOrdered: Bool
    private var _deleteRule: DeleteRule
    private var _minCount: Int
    private var _maxCount: Int

    /// Creates a relationship. `destination` may be given as an entity or, for models built in
    /// any order, by name (`destinationEntityName`); `inverse` names the inverse relationship on
    /// the destination entity.
    public init(
        name: String, destination: EntityDescription? = nil, inverse: String? = nil, toMany: Bool = false,
        isOrdered: Bool = false, deleteRule: DeleteRule = .nullify, minCount: Int = 0, maxCount: Int = 0,
        isOptional: Bool = true
    ) {
        self._destinationEntity = destination
        self._destinationEntityName = destination?.name
        self._inverseName = inverse
        self._isToMany = toMany
        self._isOrdered = isOrdered
        self._deleteRule = deleteRule
        self._minCount = minCount
        self._maxCount = maxCount
        super.init(name: name, isOptional: isOptional)
    }

    /// Creates a relationship whose destination is given by entity name, resolved when the model
    /// is checked.
    public convenience init(
        name: String, destinationEntityName: String, inverse: String? = nil, toMany: Bool = false,
        isOrdered: Bool = false, deleteRule: DeleteRule = .nullify, minCount: Int = 0, maxCount: Int = 0,
        isOptional: Bool = true
    ) {
        self.init(
            name: name, destination: nil, inverse: inverse, toMany: toMany, isOrdered: isOrdered,
            deleteRule: deleteRule, minCount: minCount, maxCount: maxCount, isOptional: isOptional)
        self._destinationEntityName = destinationEntityName
    }

    /// The entity at the other end.
    public var destinationEntity: EntityDescription? {
        get {
            if let entity = _destinationEntity { return entity }
            guard let name = _destinationEntityName else { return nil }
            return entity?.managedObjectModel?.entitiesByName[name]
        }
        set {
            mutate("destinationEntity") {
                _destinationEntity = newValue
                _destinationEntityName = newValue?.name
            }
        }
    }

    /// The name of the entity at the other end.
    public var destinationEntityName: String? { _destinationEntity?.name ?? _destinationEntityName }

    /// The name of the inverse relationship on the destination entity.
    public var inverseName: String? {
        get { _inverseName }
        set { mutate("inverseName") { _inverseName = newValue } }
    }

    /// The inverse relationship, looked up on the destination entity.
    public var inverseRelationship: RelationshipDescription? {
        get {
            guard let name = _inverseName else { return nil }
            return destinationEntity?.relationshipsByName[name]
        }
        set { mutate("inverseRelationship") { _inverseName = newValue?.name } }
    }

    /// Whether the relationship holds many objects.
    public var isToMany: Bool {
        get { _isToMany }
        set { mutate("isToMany") { _isToMany = newValue } }
    }

    /// Whether a to-many relationship keeps its objects in order.
    public var isOrdered: Bool {
        get { _isOrdered }
        set { mutate("isOrdered") { _isOrdered = newValue } }
    }

    /// What deleting the source object does to the destination objects.
    public var deleteRule: DeleteRule {
        get { _deleteRule }
        set { mutate("deleteRule") { _deleteRule = newValue } }
    }

    /// Smallest number of objects a to-many may hold at save (0: no minimum).
    public var minCount: Int {
        get { _minCount }
        set { mutate("minCount") { _minCount = newValue } }
    }

    /// Largest number of objects a to-many may hold at save (0: no maximum).
    public var maxCount: Int {
        get { _maxCount }
        set { mutate("maxCount") { _maxCount = newValue } }
    }

    override func appendVersionHashInputs(to hash: inout StableHash) {
        super.appendVersionHashInputs(to: &hash)
        hash.combine(destinationEntityName ?? "")
        hash.combine(_inverseName ?? "")
        hash.combine(_isToMany ? "many" : "one")
        hash.combine(_isOrdered ? "ordered" : "unordered")
        // Core Data's relationship hash includes the count bounds (NSRelationshipDescription.versionHash).
        hash.combine(String(_minCount))
        hash.combine(String(_maxCount))
    }
}
