import Foundation

/// A batch insert (`BatchInsertRequest`) resolved against its entity: every row to write, each
/// a full set of the entity's stored attribute values in stored form — the values given,
/// converted and checked as a batch update checks its constants (`BatchUpdatePlan.storedConstant`),
/// and the attribute's default for every other attribute — plus the uniqueness constraints the
/// rows are upserted on. Rows of one request that share a constraint's values are already
/// folded into one (the later row's values, at the earlier row's position), so every row
/// writes a distinct stored row. Built on the requesting context's queue with ``Builder``;
/// immutable, so it may be handed to the store.
struct BatchInsertPlan: @unchecked Sendable {
    // @unchecked Sendable: immutable after construction; holds frozen model descriptions and
    // stored values.

    /// A uniqueness constraint that applies to the inserted rows: declared by the entity or one
    /// of its ancestors (``owner``), over stored attributes only (a constraint naming a
    /// relationship never matches a batch-inserted row, whose relationships are all nil).
    struct Constraint {
        /// The entity that declares the constraint; it covers the rows of its whole tree.
        let owner: EntityDescription
        /// The constraint's attribute names, as declared.
        let keys: [String]
        /// The attributes' slots, in the order of ``keys`` (valid in every entity of the
        /// owner's tree: inherited slots come first).
        let slots: [Int]
    }

    /// The entity of every inserted row.
    let entity: EntityDescription
    /// Stored attributes per row (the entity layout's `storedAttributes.count`).
    let width: Int
    /// The rows' values, row after row: row `i` is `values[i * width ..< (i + 1) * width]`,
    /// by attribute slot.
    let values: ContiguousArray<StoredValue>
    /// The number of rows.
    let count: Int
    /// The constraints rows are upserted on (empty: plain inserts).
    let constraints: [Constraint]
    /// Whether the store returns the written rows' IDs (else only their number).
    let returnsObjectIDs: Bool

    /// The stored value of `slot` in row `row`.
    @inline(__always) func value(row: Int, slot: Int) -> StoredValue { values[row &* width &+ slot] }

    /// Row `row`'s values, by slot.
    func attributes(ofRow row: Int) -> ContiguousArray<StoredValue> {
        ContiguousArray(values[(row * width)..<((row + 1) * width)])
    }

    /// The values of `constraint` in row `row`, or nil when one is nil (nil never collides,
    /// as in SQLite's unique indexes).
    func key(of constraint: Constraint, row: Int) -> [StoredValue]? {
        var key: [StoredValue] = []
        key.reserveCapacity(constraint.slots.count)
        for slot in constraint.slots {
            let value = self.value(row: row, slot: slot)
            if value.isNull { return nil }
            key.append(value)
        }
        return key
    }

    /// The constraint conflict (133021) of a row that matches a stored row it may not update.
    func conflict(row: Int, _ problem: String, constraint: Constraint?, conflictingObjectID: ManagedObjectID?) -> StrataError {
        var error = StrataError(
            code: StrataError.Code.managedObjectConstraintMerge, message: "Batch insert of \(entity.name): row \(row) \(problem); nothing was inserted", entityName: entity.name,
            key: constraint?.keys.first)
        if let constraint, let conflictingObjectID {
            error.conflicts = [
                MergeConflict(
                    objectID: conflictingObjectID, oldVersionNumber: 0, newVersionNumber: 0, cachedSnapshot: [:], persistedSnapshot: nil, objectSnapshot: [:], constraint: constraint.keys,
                    conflictingObjectID: conflictingObjectID)
            ]
        }
        return error
    }

    /// The uniqueness constraints of `entity` and its ancestors that a batch insert can match
    /// (those over stored attributes only).
    static func constraints(of entity: EntityDescription) -> [Constraint] {
        var result: [Constraint] = []
        var current: EntityDescription? = entity
        while let owner = current {
            for keys in owner.uniquenessConstraints where !keys.isEmpty {
                var slots: [Int] = []
                for key in keys {
                    guard case .attribute(let slot)? = entity.layout.slot(forKey: key) else { break }
                    slots.append(slot)
                }
                if slots.count == keys.count { result.append(Constraint(owner: owner, keys: keys, slots: slots)) }
            }
            current = owner.superentity
        }
        return result
    }
}

extension BatchInsertPlan {
    /// Collects the rows of a batch insert one by one, checking each as it comes: a row is
    /// started with the entity's default values (``startRow()``), given values by key
    /// (``set(_:forKey:)``) and finished (``finishRow()``: required attributes, then folding
    /// into an earlier row with the same constraint values); or appended whole in stored form
    /// (``appendStoredRow(_:)``, for values an object's setters already converted). Every
    /// error names the entity, the row (0-based, in the order the rows were given) and the key.
    /// O(1) per value; with constraints, one hash of each constraint's values per row.
    struct Builder {
        let entity: EntityDescription
        private let width: Int
        private let defaults: ContiguousArray<StoredValue>
        /// Slots of required attributes.
        private let required: [Int]
        /// Slots of 16- and 32-bit integer attributes (range checked in stored rows).
        private let rangeChecked: [Int]
        private let constraints: [Constraint]
        private let returnsObjectIDs: Bool
        private var values: ContiguousArray<StoredValue> = []
        /// Rows kept (after folding).
        private var count = 0
        /// Rows given, the current one included while it is open.
        private var given = 0
        /// By constraint: its values → the row holding them.
        private var seen: [[[StoredValue]: Int]]

        /// Starts the rows of a batch insert into `entity`. Throws for an abstract entity.
        init(entity: EntityDescription, returnsObjectIDs: Bool) throws {
            if entity.isAbstract {
                throw StrataError(
                    code: StrataError.Code.managedObjectValidation, message: "Batch insert of \(entity.name): the entity is abstract; insert rows of one of its sub-entities", entityName: entity.name)
            }
            let layout = entity.layout
            self.entity = entity
            self.width = layout.storedAttributes.count
            self.defaults = layout.defaultValues
            self.required = layout.storedAttributes.indices.filter { !layout.storedAttributes[$0].isOptional }
            self.rangeChecked = layout.storedAttributes.indices.filter { layout.storedAttributes[$0].type == .integer16 || layout.storedAttributes[$0].type == .integer32 }
            self.constraints = BatchInsertPlan.constraints(of: entity)
            self.returnsObjectIDs = returnsObjectIDs
            self.seen = Array(repeating: [:], count: constraints.count)
        }

        private static func plainError(_ message: String, key: String?) -> StrataError {
            StrataError(code: StrataError.Code.managedObjectValidation, message: message, key: key)
        }

        /// The error of `storedConstant` for nil in a required attribute (its only use of it).
        private static func missingValue(_ message: String, key: String?) -> StrataError {
            StrataError(code: StrataError.Code.validationMissingMandatoryProperty, message: message, key: key)
        }

        /// Reserves room for `rows` rows.
        mutating func reserveCapacity(_ rows: Int) {
            values.reserveCapacity(rows * width)
        }

        private func error(_ message: String, key: String?, code: Int = StrataError.Code.managedObjectValidation) -> StrataError {
            StrataError(code: code, message: "Batch insert of \(entity.name): row \(given - 1): \(message)", entityName: entity.name, key: key)
        }

        /// `failure` (from the shared value checks) saying which request and row it is about.
        private func inRow(_ failure: StrataError, value: Any?) -> StrataError {
            var failure = failure
            let prefix = "Batch insert of \(entity.name): "
            var message = failure.message
            if message.hasPrefix(prefix) { message.removeFirst(prefix.count) }
            failure.message = prefix + "row \(given - 1): " + message
            failure.entityName = entity.name
            if let value { failure.valueDescription = String(describing: value) }
            return failure
        }

        /// Opens a row holding the entity's default values.
        mutating func startRow() {
            values.append(contentsOf: defaults)
            given += 1
        }

        /// Sets the attribute `key` of the open row: `value` (nil and `NSNull` mean nil) is
        /// converted as a setter converts it. Throws for an unknown key, a relationship (a
        /// batch insert sets attributes only, as in Core Data), a transient attribute or a
        /// fetched property, a value of the wrong type, nil for a required attribute, and an
        /// integer outside its attribute's range.
        mutating func set(_ value: Any?, forKey key: String) throws {
            guard let slot = entity.layout.slot(forKey: key) else { throw error("the entity has no property named '\(key)'", key: key) }
            let index: Int
            switch slot {
            case .attribute(let attribute): index = attribute
            case .toOne, .toMany:
                throw error("'\(key)' is a relationship; a batch insert sets attributes only (relationships are set by inserting objects in a context)", key: key)
            case .transient:
                throw error("'\(key)' is a transient attribute; a batch insert writes stored attributes only", key: key)
            case .fetched:
                throw error("'\(key)' is a fetched property; a batch insert writes stored attributes only", key: key)
            }
            let attribute = entity.layout.storedAttributes[index]
            var given = value
            // NSNull is nil (compared by type: an `is` cast would cost more than the conversion).
            if let value, ObjectIdentifier(type(of: value)) == ObjectIdentifier(NSNull.self) { given = nil }
            let stored: StoredValue
            do {
                stored = try BatchUpdatePlan.storedConstant(given, for: attribute, request: "Batch insert", error: Self.missingValue)
            } catch let failure as StrataError {
                throw inRow(failure, value: given)
            }
            values[count * width + index] = stored
        }

        /// Appends a whole row already in stored form, by slot (from an object's setters, which
        /// convert types but leave range and required checks to the save). Throws for an
        /// integer outside its attribute's range and a required attribute without a value.
        mutating func appendStoredRow<Row: RandomAccessCollection<StoredValue>>(_ row: Row) throws where Row.Index == Int {
            given += 1
            guard row.count == width else {
                throw error("the row has \(row.count) values for \(width) attributes", key: nil, code: StrataError.Code.coreData)
            }
            values.append(contentsOf: row)
            for slot in rangeChecked {
                do {
                    try BatchUpdatePlan.checkRange(row[slot], for: entity.layout.storedAttributes[slot], request: "Batch insert", error: Self.plainError)
                } catch let failure as StrataError {
                    throw inRow(failure, value: row[slot])
                }
            }
            try finishRow()
        }

        /// Closes the open row: every required attribute must have a value (given or by
        /// default); then, when a constraint's values match an earlier row's, the earlier row
        /// takes this row's values (the later row wins, as the store's upsert would) and this
        /// row goes. Throws for a missing required value, and for a row matching two different
        /// earlier rows through two constraints.
        mutating func finishRow() throws {
            let base = count * width
            for slot in required where values[base + slot].isNull {
                let name = entity.layout.storedAttributes[slot].name
                throw error("'\(name)', a required attribute, has no value and no default", key: name, code: StrataError.Code.validationMissingMandatoryProperty)
            }
            guard !constraints.isEmpty else {
                count += 1
                return
            }
            var keys: [[StoredValue]?] = []
            keys.reserveCapacity(constraints.count)
            var earlier: Int?
            for (index, constraint) in constraints.enumerated() {
                var key: [StoredValue]? = []
                for slot in constraint.slots {
                    let value = values[base + slot]
                    if value.isNull {
                        key = nil
                        break
                    }
                    key?.append(value)
                }
                keys.append(key)
                guard let key, let row = seen[index][key] else { continue }
                if let earlier, earlier != row {
                    throw error(
                        "its values match row \(earlier) on one uniqueness constraint and row \(row) on \(constraint.keys); a row can replace only one",
                        key: constraint.keys.first, code: StrataError.Code.managedObjectConstraintMerge)
                }
                earlier = row
            }
            guard let earlier else {
                for (index, key) in keys.enumerated() {
                    if let key { seen[index][key] = count }
                }
                count += 1
                return
            }
            // The later row wins: its values replace the earlier row's, which keeps its place.
            let target = earlier * width
            for (index, constraint) in constraints.enumerated() {
                let old = constraint.slots.map { values[target + $0] }
                if seen[index][old] == earlier { seen[index][old] = nil }
            }
            for slot in 0..<width { values[target + slot] = values[base + slot] }
            values.removeLast(width)
            for (index, key) in keys.enumerated() {
                if let key { seen[index][key] = earlier }
            }
        }

        /// The plan of the rows collected.
        func finish() -> BatchInsertPlan {
            BatchInsertPlan(entity: entity, width: width, values: values, count: count, constraints: constraints, returnsObjectIDs: returnsObjectIDs)
        }
    }
}
