import Foundation

/// Where each property of an entity lives in a managed object's storage.
enum PropertySlot: Sendable, Equatable {
    /// A stored attribute: index into the object's attribute values and the row snapshot.
    case attribute(Int)
    /// A transient attribute: index into the object's transient values.
    case transient(Int)
    /// A to-one relationship: index into the object's to-one values and the row snapshot.
    case toOne(Int)
    /// A to-many relationship: index into the object's to-many values.
    case toMany(Int)
    /// A fetched property: index into the entity's fetched properties.
    case fetched(Int)
}

/// The resolved, immutable shape of a frozen entity: slots for every property (inherited first,
/// so an ancestor's slot numbers stay valid in every descendant), its entity code and its
/// inheritance facts. Computed once when the model freezes.
final class EntityLayout: @unchecked Sendable {
    // @unchecked Sendable: immutable after construction; `entity` is owned by the entity itself.
    unowned let entity: EntityDescription
    let code: Int64
    let allProperties: [PropertyDescription]
    let propertiesByName: [String: PropertyDescription]
    let slots: [String: PropertySlot]
    /// `slots` for the hot paths (see ``SlotTable``).
    let slotTable: SlotTable
    let storedAttributes: [AttributeDescription]
    /// The types of ``storedAttributes``, by slot (read on every typed attribute access).
    let storedAttributeTypes: ContiguousArray<AttributeType>
    /// Whether each stored attribute, by slot, has value rules of its own (range, length,
    /// pattern): read for every attribute of every saved object, where asking the attribute
    /// copies its optional bounds.
    let storedAttributeHasValueRules: ContiguousArray<Bool>
    let transientAttributes: [AttributeDescription]
    let toOneRelationships: [RelationshipDescription]
    let toManyRelationships: [RelationshipDescription]
    /// The to-one slots of transient relationships, in increasing order (nearly always none).
    /// A transient relationship has its slot like any other (so edits, inverse maintenance,
    /// validation and delete rules treat it alike) but its value lives in memory only: it is
    /// never in a store, a snapshot or what a parent store reports (see ``storedToOnes(_:)``).
    let transientToOneSlots: [Int]
    /// The to-many slots of transient relationships, in increasing order (nearly always none).
    let transientToManySlots: [Int]
    let fetchedProperties: [FetchedPropertyDescription]
    /// This entity's code and those of all its descendants.
    let descendantCodes: [Int64]
    let hasSubentities: Bool
    /// Identifies the root of the entity's inheritance tree (the rows its primary keys number);
    /// set by ``build(for:)``.
    private(set) var rootIdentifier: ObjectIdentifier
    /// Stored defaults of the stored attributes, by slot (a default that does not convert is
    /// nil here; the model check reports it before the model is used).
    let defaultValues: ContiguousArray<StoredValue>
    /// Defaults of the transient attributes, by slot.
    let transientDefaults: [Any?]
    /// Every attribute and relationship with its slot, in property order (what a save validates).
    let validatedProperties: [(property: PropertyDescription, slot: PropertySlot)]
    /// Whether any property has validation predicates or rules.
    let hasValidationPredicates: Bool
    /// For each to-one slot: its inverse and the inverse's slot in the destination's objects
    /// (nil without an inverse). Set once by ``build(for:)`` when every layout exists.
    private(set) var toOneInverses: [InverseLink?] = []
    /// For each to-many slot: its inverse and the inverse's slot (nil without an inverse).
    private(set) var toManyInverses: [InverseLink?] = []

    init(entity: EntityDescription, code: Int64, descendantCodes: [Int64]) {
        self.entity = entity
        self.code = code
        self.descendantCodes = descendantCodes
        self.hasSubentities = !entity.subentities.isEmpty
        self.rootIdentifier = ObjectIdentifier(entity)
        let all = entity.ancestry.reversed().flatMap(\.properties)
        allProperties = all
        var byName: [String: PropertyDescription] = [:]
        var slots: [String: PropertySlot] = [:]
        var stored: [AttributeDescription] = []
        var transient: [AttributeDescription] = []
        var toOne: [RelationshipDescription] = []
        var toMany: [RelationshipDescription] = []
        var fetched: [FetchedPropertyDescription] = []
        for property in all {
            byName[property.name] = property
            switch property {
            case let attribute as AttributeDescription:
                if attribute.isTransient {
                    slots[attribute.name] = .transient(transient.count)
                    transient.append(attribute)
                } else {
                    slots[attribute.name] = .attribute(stored.count)
                    stored.append(attribute)
                }
            case let relationship as RelationshipDescription:
                if relationship.isToMany {
                    slots[relationship.name] = .toMany(toMany.count)
                    toMany.append(relationship)
                } else {
                    slots[relationship.name] = .toOne(toOne.count)
                    toOne.append(relationship)
                }
            case let fetchedProperty as FetchedPropertyDescription:
                slots[fetchedProperty.name] = .fetched(fetched.count)
                fetched.append(fetchedProperty)
            default:
                break
            }
        }
        self.propertiesByName = byName
        self.slots = slots
        self.slotTable = SlotTable(slots)
        self.storedAttributes = stored
        self.storedAttributeTypes = ContiguousArray(stored.map(\.type))
        self.storedAttributeHasValueRules = ContiguousArray(stored.map(\.hasValueRules))
        self.transientAttributes = transient
        self.toOneRelationships = toOne
        self.toManyRelationships = toMany
        self.transientToOneSlots = toOne.indices.filter { toOne[$0].isTransient }
        self.transientToManySlots = toMany.indices.filter { toMany[$0].isTransient }
        self.fetchedProperties = fetched
        self.defaultValues = ContiguousArray(
            stored.map { attribute -> StoredValue in
                guard let value = attribute.defaultValue, case .success(let encoded) = AttributeCodec.encode(value, for: attribute) else { return .null }
                return encoded
            })
        self.transientDefaults = transient.map { $0.defaultValue }
        self.validatedProperties = all.compactMap { property in
            guard let slot = slots[property.name] else { return nil }
            if case .fetched = slot { return nil }
            return (property, slot)
        }
        self.hasValidationPredicates = all.contains { !$0.validationPredicates.isEmpty || !$0.validationRules.isEmpty }
    }

    /// Builds the layouts of all entities. Codes are assigned 1…n in name order, so they are
    /// the same for every model with the same entity names (the store also records them).
    static func build(for entities: [EntityDescription]) -> [ObjectIdentifier: EntityLayout] {
        let sorted = entities.sorted { $0.name < $1.name }
        var codes: [ObjectIdentifier: Int64] = [:]
        for (index, entity) in sorted.enumerated() { codes[ObjectIdentifier(entity)] = Int64(index + 1) }
        func descendants(of entity: EntityDescription) -> [Int64] {
            var result: [Int64] = []
            if let code = codes[ObjectIdentifier(entity)] { result.append(code) }
            for sub in entity.subentities { result += descendants(of: sub) }
            return result
        }
        var layouts: [ObjectIdentifier: EntityLayout] = [:]
        for entity in sorted {
            guard let code = codes[ObjectIdentifier(entity)] else { continue }
            layouts[ObjectIdentifier(entity)] = EntityLayout(entity: entity, code: code, descendantCodes: descendants(of: entity))
        }
        // Inverses, with their slots: an inverse lives on the destination or one of its
        // ancestors, and inherited slots keep their numbers in every descendant, so the slot
        // found in the destination's layout is valid in every object a relationship can hold.
        func link(_ relationship: RelationshipDescription) -> InverseLink? {
            guard let destination = relationship.destinationEntity, let inverse = relationship.inverseRelationship,
                let slot = layouts[ObjectIdentifier(destination)]?.slots[inverse.name]
            else { return nil }
            return InverseLink(relationship: inverse, slot: slot)
        }
        for layout in layouts.values {
            layout.rootIdentifier = ObjectIdentifier(layout.entity.rootEntity)
            layout.toOneInverses = layout.toOneRelationships.map(link)
            layout.toManyInverses = layout.toManyRelationships.map(link)
        }
        return layouts
    }

    /// Where the property named `key` lives in an object, or nil if the entity has none.
    @inline(__always) func slot(forKey key: String) -> PropertySlot? { slotTable.slot(forKey: key) }

    /// Whether the entity has transient relationships (to-one or to-many).
    var hasTransientRelationships: Bool { !transientToOneSlots.isEmpty || !transientToManySlots.isEmpty }

    /// `values` (an object's to-one targets, by slot) as a store and a snapshot hold them: the
    /// transient slots nil. Returns `values` itself when the entity has no transient to-one.
    @inline(__always)
    func storedToOnes<Targets: MutableCollection<ManagedObjectID?>>(_ values: Targets) -> Targets where Targets.Index == Int {
        if transientToOneSlots.isEmpty { return values }
        var stored = values
        for slot in transientToOneSlots where slot < stored.count { stored[slot] = nil }
        return stored
    }

    /// `stored` (to-one targets a parent store reported) with the transient slots taken from
    /// `current` (the object's values in memory): new stored values leave transient ones as
    /// they are. Returns `stored` itself when the entity has no transient to-one.
    @inline(__always)
    func toOnes<Targets: MutableCollection<ManagedObjectID?>>(_ stored: Targets, keepingTransientOf current: Targets) -> Targets where Targets.Index == Int {
        if transientToOneSlots.isEmpty { return stored }
        var merged = stored
        for slot in transientToOneSlots where slot < merged.count && slot < current.count { merged[slot] = current[slot] }
        return merged
    }

    /// The inverse of the relationship in `slot` (to-one or to-many), if it has one.
    func inverse(of slot: PropertySlot) -> InverseLink? {
        switch slot {
        case .toOne(let index): return index < toOneInverses.count ? toOneInverses[index] : nil
        case .toMany(let index): return index < toManyInverses.count ? toManyInverses[index] : nil
        default: return nil
        }
    }
}

/// A relationship's inverse and where it lives in the destination's objects.
struct InverseLink {
    let relationship: RelationshipDescription
    let slot: PropertySlot
}

extension EntityDescription {
    /// The frozen layout. Every entity reaching a context or store belongs to a frozen model;
    /// an entity that does not (a detached placeholder) gets an empty layout built on the spot.
    ///
    /// A read accessor: `entity.layout.slot(forKey:)` and the like borrow the layout for the
    /// access instead of retaining and releasing it (objects read it on every property access).
    var layout: EntityLayout {
        _read {
            if layoutStorage == nil { layoutStorage = EntityLayout(entity: self, code: 0, descendantCodes: [0]) }
            yield layoutStorage.unsafelyUnwrapped
        }
    }
}
