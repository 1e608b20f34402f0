import Foundation

/// Core Data's migration error codes (`CoreDataErrors.h`) that lightweight migration reports.
extension StrataError.Code {
    /// No source model matches the store's version hashes (134130,
    /// `NSMigrationMissingSourceModelError`).
    public static let migrationMissingSourceModel = 134130
    /// No mapping model could be found or inferred for the migration (134140,
    /// `NSMigrationMissingMappingModelError`); the underlying error says why inference failed.
    public static let migrationMissingMappingModel = 134140
    /// A mapping model cannot be inferred between two models (134190,
    /// `NSInferredMappingModelError`): the message names the entity and property that changed in
    /// a way lightweight migration cannot follow.
    public static let inferredMappingModel = 134190
}
