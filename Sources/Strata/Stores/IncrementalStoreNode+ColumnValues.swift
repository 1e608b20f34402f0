import Foundation

extension IncrementalStoreNode {
    /// A column's value as SQL databases hand it over: one of five storage classes. The form
    /// ``init(objectID:version:columnValues:toOneTargets:)`` takes, so that a store reading many
    /// rows need not make a Swift value of each column (an `Any` for
    /// ``init(objectID:version:attributeValues:toOneTargets:)``) only for the node to convert it
    /// back. A value type, `Sendable`: make it on any thread.
    public enum ColumnValue: Sendable, Hashable {
        /// No value (SQL `NULL`).
        case null
        /// A signed 64-bit integer.
        case integer(Int64)
        /// A double-precision number.
        case real(Double)
        /// UTF-8 text.
        case text(String)
        /// Bytes.
        case blob(Data)
    }

    /// A node for `objectID` at `version` from column values by position — the fastest form for
    /// a store that reads many rows: `columnValues[i]` is the value of
    /// `storedAttributes(of: entity)[i]`, `toOneTargets[i]` the target of
    /// `toOneRelationships(of: entity)[i]` (transient ones are ignored); missing trailing
    /// entries are `.null` and nil. Each attribute type takes these storage classes:
    ///
    /// | attribute type | takes |
    /// |---|---|
    /// | integer16, integer32, integer64 | `.integer` within the type's range |
    /// | double, float, date | `.real` or `.integer` (a date as seconds since 2001-01-01 UTC, as Core Data keeps it; a float is rounded to `Float`) |
    /// | decimal | `.text` (the decimal in POSIX form, or `NaN`) or `.integer` |
    /// | string, uri | `.text` (a URI's absolute string) |
    /// | boolean | `.integer` 0 or 1 |
    /// | binaryData | `.blob` |
    /// | uuid | `.blob` of its 16 bytes, or `.text` in its usual form |
    /// | transformable | `.blob`: the bytes its value transformer made (it runs when the value is read) |
    ///
    /// `.null` fits every type. Throws a ``StrataError`` (`persistentStoreOperation`) naming the
    /// attribute for a value its type cannot take (a row written by another program), and one
    /// for more values than the entity has. Any thread.
    public convenience init(objectID: ManagedObjectID, version: Int64, columnValues: [ColumnValue], toOneTargets: [ManagedObjectID?]) throws {
        self.init(row: try Self.row(objectID: objectID, version: version, columnValues: columnValues, toOneTargets: toOneTargets))
    }

    /// The row ``init(objectID:version:columnValues:toOneTargets:)`` carries (also what
    /// ``IncrementalStoreRowList/append(objectID:version:columnValues:toOneTargets:)`` appends),
    /// with its checks. Any thread.
    static func row(objectID: ManagedObjectID, version: Int64, columnValues: [ColumnValue], toOneTargets: [ManagedObjectID?]) throws -> RowSnapshot {
        let entity = objectID.entity
        let layout = entity.layout
        let count = layout.storedAttributes.count
        let toOneCount = layout.toOneRelationships.count
        guard columnValues.count <= count, toOneTargets.count <= toOneCount else {
            throw StrataError(
                code: StrataError.Code.managedObjectValidation,
                message: "A store node of '\(entity.name)' got \(columnValues.count) column values and \(toOneTargets.count) to-one targets for \(count) and \(toOneCount)",
                entityName: entity.name, objectID: objectID)
        }
        // As in the positional initializer: a value that does not fit is kept as NULL (every slot
        // gets a value) and reported once the row is made.
        var misfit: Int?
        let fetchedAt = StoreReadClock.rowReadTime
        let row = RowSnapshot.make(objectID: objectID, version: version, fetchedAt: fetchedAt, count: count, toOneCount: toOneCount) { values, targets in
            Self.initializeTargets(targets, from: toOneTargets, layout: layout)
            layout.storedAttributeTypes.withUnsafeBufferPointer { types in
                for slot in 0..<count {
                    var stored = StoredValue.null
                    if slot < columnValues.count, misfit == nil {
                        if let value = Self.storedValue(columnValues[slot], type: types[slot]) {
                            stored = value
                        } else {
                            misfit = slot
                        }
                    }
                    (values + slot).initialize(to: stored)
                }
            }
        }
        if let misfit {
            let attribute = layout.storedAttributes[misfit]
            throw StrataError(
                code: StrataError.Code.persistentStoreOperation,
                message:
                    "A store node's value of \(entity.name).\(attribute.name) is \(Self.storageClassName(columnValues[misfit])), which an attribute of type \(attribute.type.rawValue) cannot take",
                entityName: entity.name, key: attribute.name, objectID: objectID)
        }
        return row
    }

    /// The stored form (`AttributeCodec`'s) of `value` for an attribute of `type`, or nil when
    /// the type cannot take it (see the table of ``init(objectID:version:columnValues:toOneTargets:)``).
    @inline(__always)
    static func storedValue(_ value: ColumnValue, type: AttributeType) -> StoredValue? {
        switch (type, value) {
        case (_, .null): return .null
        case (.integer64, .integer(let int)): return .integer(int)
        case (.integer32, .integer(let int)): return Int32(exactly: int) == nil ? nil : .integer(int)
        case (.integer16, .integer(let int)): return Int16(exactly: int) == nil ? nil : .integer(int)
        case (.double, .real(let double)): return AttributeCodec.storedDouble(double)
        case (.double, .integer(let int)): return AttributeCodec.storedDouble(Double(int))
        case (.float, .real(let double)): return AttributeCodec.storedDouble(Double(Float(double)))
        case (.float, .integer(let int)): return AttributeCodec.storedDouble(Double(Float(int)))
        case (.date, .real(let seconds)): return .real(seconds)
        case (.date, .integer(let seconds)): return .real(Double(seconds))
        case (.decimal, .text(let text)):
            if text == "NaN" { return .text("NaN") }
            return Decimal(string: text, locale: DecimalText.posix).map { .text(DecimalText.canonical($0)) }
        case (.decimal, .integer(let int)): return .text(DecimalText.canonical(Decimal(int)))
        case (.string, .text(let text)), (.uri, .text(let text)): return .text(text)
        case (.boolean, .integer(let int)): return int == 0 || int == 1 ? .integer(int) : nil
        case (.binaryData, .blob(let data)), (.transformable, .blob(let data)): return .blob(data)
        case (.uuid, .blob(let data)): return data.count == 16 ? .blob(data) : nil
        case (.uuid, .text(let text)): return UUID(uuidString: text).map { .blob(AttributeCodec.uuidData($0)) }
        default: return nil
        }
    }

    /// The name of `value`'s storage class, for messages.
    private static func storageClassName(_ value: ColumnValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let int): return "the integer \(int)"
        case .real(let double): return "the real \(double)"
        case .text: return "text"
        case .blob(let data): return "a blob of \(data.count) bytes"
        }
    }
}
