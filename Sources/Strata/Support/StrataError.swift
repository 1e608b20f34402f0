import Foundation

/// The one error type Strata throws.
///
/// `code` holds Core Data's number for the same failure (see ``StrataError/Code``), so code that
/// switches on Core Data's codes keeps working. The other properties say *what* and *where*: the
/// entity, key and object involved, the offending value, the file, the offset in a predicate
/// string, and for store failures the SQLite result code, message and statement.
///
/// `StrataError` is `Sendable`: it can be thrown out of `perform` and carried across queues.
public struct StrataError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// Core Data's error code for this failure (`1570`, `133020`, …).
    public var code: Int
    /// A sentence saying what went wrong.
    public var message: String
    /// The entity involved, if any.
    public var entityName: String?
    /// The property key involved, if any.
    public var key: String?
    /// The object involved, if any.
    public var objectID: ManagedObjectID?
    /// A printable rendering of the offending value, if any.
    public var valueDescription: String?
    /// The store file involved, if any.
    public var url: URL?
    /// For predicate parse errors: the character offset of the bad token.
    public var offset: Int?
    /// For model-file errors: the 1-based line of the offending element in its file (see
    /// ``url``), when the problem is at one line.
    public var line: Int?
    /// For predicate parse errors: the input with a caret under the bad token.
    public var sourceExcerpt: String?
    /// For SQLite failures: the primary and extended result codes.
    public var sqliteCode: Int32?
    /// For SQLite failures: the extended result code.
    public var sqliteExtendedCode: Int32?
    /// For SQLite failures: SQLite's message.
    public var sqliteMessage: String?
    /// For SQLite failures: the statement that failed (arguments are never included).
    public var sql: String?
    /// For code 1560 (multiple validation errors): each error found.
    public var underlyingErrors: [StrataError]
    /// For merge conflicts (133020, 133021): each conflicting object.
    public var conflicts: [MergeConflict]

    /// Creates an error. Most callers use the static factories instead.
    public init(
        code: Int, message: String, entityName: String? = nil, key: String? = nil,
        objectID: ManagedObjectID? = nil, valueDescription: String? = nil, url: URL? = nil,
        underlyingErrors: [StrataError] = []
    ) {
        self.code = code
        self.message = message
        self.entityName = entityName
        self.key = key
        self.objectID = objectID
        self.valueDescription = valueDescription
        self.url = url
        self.underlyingErrors = underlyingErrors
        self.conflicts = []
    }

    /// Whether this is one of Core Data's validation codes (1550–1680).
    public var isValidationError: Bool { (1550...1680).contains(code) }

    /// The errors this error stands for: its `underlyingErrors` when it is a multiple-errors
    /// error (1560), else itself.
    public var allErrors: [StrataError] { code == Code.validationMultipleErrors ? underlyingErrors : [self] }

    public var description: String {
        var parts = ["StrataError \(code): \(message)"]
        if let entityName { parts.append("entity: \(entityName)") }
        if let key { parts.append("key: \(key)") }
        if let objectID { parts.append("object: \(objectID.uriRepresentation().absoluteString)") }
        if let valueDescription { parts.append("value: \(valueDescription)") }
        if let offset { parts.append("offset: \(offset)") }
        if let line { parts.append("line: \(line)") }
        if let url { parts.append("file: \(url.path)") }
        if let sqliteCode { parts.append("SQLite code: \(sqliteExtendedCode ?? sqliteCode)") }
        if let sqliteMessage { parts.append("SQLite message: \(sqliteMessage)") }
        if let sql { parts.append("SQL: \(sql)") }
        var text = parts.joined(separator: "; ")
        if let sourceExcerpt { text += "\n" + sourceExcerpt }
        for error in underlyingErrors { text += "\n  - " + error.description }
        for conflict in conflicts { text += "\n  - " + conflict.description }
        return text
    }

    public var errorDescription: String? { description }
}

extension StrataError {
    /// Core Data's error codes, under their Core Data names without the `NS` prefix and the
    /// `Error` suffix.
    ///
    /// Constants: use them on any thread.
    public enum Code {
        /// The operation was cancelled (Cocoa's `NSUserCancelledError`, 3072): an asynchronous
        /// fetch cancelled before its completion ran.
        public static let userCancelled = 3072
        /// Generic validation failure: wrong value type, unknown key, failed predicate (1550).
        public static let managedObjectValidation = 1550
        /// Several validation errors at once; see `underlyingErrors` (1560).
        public static let validationMultipleErrors = 1560
        /// A required property is nil (1570).
        public static let validationMissingMandatoryProperty = 1570
        /// A to-many relationship has fewer objects than its `minCount` (1580).
        public static let validationRelationshipLacksMinimumCount = 1580
        /// A to-many relationship has more objects than its `maxCount` (1590).
        public static let validationRelationshipExceedsMaximumCount = 1590
        /// A deny delete rule blocked a delete (1600).
        public static let validationRelationshipDeniedDelete = 1600
        /// A number is above its attribute's maximum or its type's range (1610).
        public static let validationNumberTooLarge = 1610
        /// A number is below its attribute's minimum or its type's range (1620).
        public static let validationNumberTooSmall = 1620
        /// A date is after its attribute's maximum (1630).
        public static let validationDateTooLate = 1630
        /// A date is before its attribute's minimum (1640).
        public static let validationDateTooSoon = 1640
        /// A date is invalid (1650).
        public static let validationInvalidDate = 1650
        /// A string is longer than its attribute's maximum length (1660).
        public static let validationStringTooLong = 1660
        /// A string is shorter than its attribute's minimum length (1670).
        public static let validationStringTooShort = 1670
        /// A string does not match its attribute's pattern (1680).
        public static let validationStringPatternMatching = 1680
        /// A context was used off its queue (132000).
        public static let managedObjectContextLocking = 132000
        /// An object's row is gone from the store (133000).
        public static let managedObjectReferentialIntegrity = 133000
        /// An object belongs to another coordinator's store (133010).
        public static let managedObjectExternalRelationship = 133010
        /// Optimistic-locking conflict at save (133020).
        public static let managedObjectMerge = 133020
        /// Uniqueness-constraint conflict at save (133021).
        public static let managedObjectConstraintMerge = 133021
        /// Unknown store type (134000).
        public static let persistentStoreInvalidType = 134000
        /// The store's type does not match the one requested (134010).
        public static let persistentStoreTypeMismatch = 134010
        /// The store's schema does not match (134020).
        public static let persistentStoreIncompatibleSchema = 134020
        /// A save failed in the store (134030).
        public static let persistentStoreSave = 134030
        /// A save failed part-way (134040).
        public static let persistentStoreIncompleteSave = 134040
        /// Generic Core Data error: bad request, unknown entity, misuse (134060).
        public static let coreData = 134060
        /// A store operation failed (134070).
        public static let persistentStoreOperation = 134070
        /// The store cannot be opened, or was made with a different model (134080).
        public static let persistentStoreOpen = 134080
        /// Waiting for a lock on the store timed out (134090).
        public static let persistentStoreTimeout = 134090
        /// The store does not support this request (134091).
        public static let persistentStoreUnsupportedRequestType = 134091
        /// The model's version hashes differ from the store's (134100).
        public static let persistentStoreIncompatibleVersionHash = 134100
        /// Migration failed (134110).
        public static let migration = 134110
        /// A migration's destination broke a uniqueness constraint (134111).
        public static let migrationConstraintViolation = 134111
        /// A migration was cancelled with `MigrationManager.cancelMigrationWithError(_:)` (134120).
        public static let migrationCancelled = 134120
        /// No source model was given or found for a migration (134130).
        public static let migrationMissingSourceModel = 134130
        /// No mapping model was given or found for a migration, or it is unusable (134140).
        public static let migrationMissingMappingModel = 134140
        /// A migration could not open or read its source store (134150).
        public static let migrationManagerSourceStore = 134150
        /// A migration could not create or write its destination store (134160).
        public static let migrationManagerDestinationStore = 134160
        /// An entity migration policy failed (134170).
        public static let entityMigrationPolicy = 134170
        /// SQLite reported an error (134180).
        public static let sqlite = 134180
        /// A mapping model cannot be inferred between two models (134190,
        /// `NSInferredMappingModelError`): the message names the entity and property that changed in
        /// a way lightweight migration cannot follow.
        public static let inferredMappingModel = 134190
    }
}

extension StrataError {
    /// Wraps any error thrown while touching a store.
    static func wrapping(_ error: any Error, while doing: String, url: URL?, defaultCode: Int = Code.sqlite) -> StrataError {
        if let strata = error as? StrataError { return strata }
        if let convertible = error as? any StrataErrorConvertible { return convertible.strataError(while: doing, url: url, defaultCode: defaultCode) }
        return StrataError(code: defaultCode, message: "\(doing) failed: \(error)", url: url)
    }

    /// Several validation errors as one (1560), or the single error itself.
    static func combining(_ errors: [StrataError]) -> StrataError? {
        if errors.isEmpty { return nil }
        if errors.count == 1 { return errors[0] }
        return StrataError(
            code: Code.validationMultipleErrors,
            message: "\(errors.count) validation errors", underlyingErrors: errors.flatMap(\.allErrors))
    }
}

/// An error of a lower layer that knows how to become a ``StrataError`` (a store's own errors:
/// the SQLite store's `SQLiteError`, in `Stores/SQLite/SQLiteError+Strata.swift`).
protocol StrataErrorConvertible: Error {
    /// This error as a `StrataError`, saying what failed (`doing`) and where (`url`), with
    /// `defaultCode` unless the error maps to a more precise Core Data code.
    func strataError(while doing: String, url: URL?, defaultCode: Int) -> StrataError
}
