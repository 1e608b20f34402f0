import Foundation

/// The column form of a binary value kept in a file beside a SQLite store (see
/// `Stores/SQLite/ExternalBinaryStorage.swift`): the TEXT value
/// `strata-external-data:sha256:<64 lowercase hex digits>`, the SHA-256 of the file's bytes.
///
/// Why TEXT: the attribute types that may be stored externally (binary data, transformable)
/// always store their values in the row as BLOBs, and their columns are declared `BLOB` (no
/// affinity, so SQLite never converts a TEXT value). A reference is therefore told from an
/// inline value by its storage class alone: no byte string a user stores can ever be taken for a
/// reference, and inline values carry no prefix (so a store whose attribute gains or loses
/// `allowsExternalBinaryDataStorage` between model versions reads the same). Copying a column
/// value as it is (`INSERT … SELECT`, row-by-row copies) keeps a reference valid: it names the
/// file by content, not by row.
enum ExternalBinaryReference {
    static let prefix = "strata-external-data:sha256:"

    /// The column text that refers to the file named `hash`.
    static func text(hash: String) -> String { prefix + hash }

    /// The column text that refers to a file holding `data`.
    static func text(for data: Data) -> String { text(hash: SHA256.hexDigest(data)) }

    /// The hash a column value refers to, or nil when the value is no reference.
    static func hash(in value: StoredValue) -> String? {
        guard case .text(let text) = value else { return nil }
        return hash(inText: text)
    }

    /// The hash a column text refers to, or nil when it is no reference.
    static func hash(inText text: String) -> String? {
        guard text.hasPrefix(prefix) else { return nil }
        let hash = String(text.dropFirst(prefix.count))
        return isHash(hash) ? hash : nil
    }

    /// Whether `name` is 64 lowercase hexadecimal digits (a file name the store may create).
    static func isHash(_ name: String) -> Bool {
        let utf8 = name.utf8
        return utf8.count == 64 && utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Whether values of `attribute` may hold references: binary data and transformable
    /// attributes, whatever their `allowsExternalBinaryDataStorage` (the flag is not part of the
    /// version hash and may change between model versions; a reference written under one
    /// version must still be read, and kept alive, under the next).
    static func mayHoldReferences(_ attribute: AttributeDescription) -> Bool {
        attribute.type == .binaryData || attribute.type == .transformable
    }

    /// Whether new values of `attribute` at or above the threshold go to files.
    static func storesExternally(_ attribute: AttributeDescription) -> Bool {
        attribute.allowsExternalBinaryDataStorage && mayHoldReferences(attribute)
    }
}

/// The SQL of external binary storage, built from a schema once: which columns may hold
/// references, and the statements that find references (orphan collection, the check before a
/// file is removed, the old values of a row about to change).
struct ExternalBinaryStatements: Sendable {
    /// A column that may hold references.
    struct Column: Hashable, Sendable {
        let table: String
        let column: String
    }

    /// Every column of a binary-data or transformable attribute, sorted by table then column.
    let columns: [Column]
    /// Per entity (by identity): its attribute slots that may hold references.
    private let slotsByEntity: [ObjectIdentifier: [Int]]
    /// Per entity: the slots of new values that go to files at or above the threshold.
    private let externalSlotsByEntity: [ObjectIdentifier: [Int]]
    /// Per entity: `SELECT <reference columns> FROM <table> WHERE Z_PK = ?`, in slot order.
    private let rowReferencesByEntity: [ObjectIdentifier: String]

    init(schema: SQLiteSchema) {
        var columns = Set<Column>()
        var slots: [ObjectIdentifier: [Int]] = [:]
        var external: [ObjectIdentifier: [Int]] = [:]
        var rowSQL: [ObjectIdentifier: String] = [:]
        for entity in schema.model.entities {
            guard let table = schema.table(for: entity) else { continue }
            var names: [String] = []
            for (slot, attribute) in entity.layout.storedAttributes.enumerated() where ExternalBinaryReference.mayHoldReferences(attribute) {
                guard let column = schema.attributeColumn(attribute, of: entity) else { continue }
                columns.insert(Column(table: table.name, column: column))
                slots[ObjectIdentifier(entity), default: []].append(slot)
                names.append(SQLFragment.identifier(column))
                if ExternalBinaryReference.storesExternally(attribute) { external[ObjectIdentifier(entity), default: []].append(slot) }
            }
            if !names.isEmpty {
                rowSQL[ObjectIdentifier(entity)] = "SELECT " + names.joined(separator: ", ") + " FROM " + SQLFragment.identifier(table.name) + " WHERE Z_PK = ?"
            }
        }
        self.columns = columns.sorted { ($0.table, $0.column) < ($1.table, $1.column) }
        self.slotsByEntity = slots
        self.externalSlotsByEntity = external
        self.rowReferencesByEntity = rowSQL
    }

    /// The attribute slots of `entity` that may hold references (empty when none).
    func referenceSlots(of entity: EntityDescription) -> [Int] { slotsByEntity[ObjectIdentifier(entity)] ?? [] }

    /// The attribute slots of `entity` whose large new values go to files (empty when none).
    func externalSlots(of entity: EntityDescription) -> [Int] { externalSlotsByEntity[ObjectIdentifier(entity)] ?? [] }

    /// The values of `entity`'s reference columns in one row (bind `Z_PK`), in the order of
    /// ``referenceSlots(of:)``; nil when the entity has none.
    func rowReferences(of entity: EntityDescription) -> String? { rowReferencesByEntity[ObjectIdentifier(entity)] }

    /// Every reference held by `column`.
    static func references(in column: Column) -> String {
        let name = SQLFragment.identifier(column.column)
        return "SELECT " + name + " FROM " + SQLFragment.identifier(column.table) + " WHERE typeof(" + name + ") = 'text'"
    }

    /// One row when `column` holds the bound reference text.
    static func holds(_ column: Column) -> String {
        "SELECT 1 FROM " + SQLFragment.identifier(column.table) + " WHERE " + SQLFragment.identifier(column.column) + " = ? LIMIT 1"
    }
}
