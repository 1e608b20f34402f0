import Foundation

extension EntityMapping {
    /// The policy class that runs this mapping in a custom migration (Core Data's
    /// `entityMigrationPolicyClassName`, typed): `nil` runs the default
    /// ``EntityMigrationPolicy``. Set it before handing the mapping model to a migration; not
    /// thread-safe while being changed.
    public var entityMigrationPolicyClass: EntityMigrationPolicy.Type? {
        get { policyClass as? EntityMigrationPolicy.Type }
        set { policyClass = newValue }
    }
}
