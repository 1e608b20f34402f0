import Foundation
import Strata

extension BankModel {
    /// The bank model's next version, for the migration parts of the harness: every kind of
    /// change a lightweight migration infers touches one of its tables.
    ///
    /// - `Account.padding` is renamed `memo` (renaming identifier `padding`); `Account` gains an
    ///   optional `openedAt` date and an optional to-one `branch`;
    /// - a new entity `Branch(name, accounts)`;
    /// - `SaveRecord.kind` becomes required with the default `"plain"` (rows without a kind get it);
    /// - `Transfer`, `Counter` and `AuditEntry` are unchanged (copied as they are).
    public static func makeNext() -> ManagedObjectModel {
        let model = make()
        guard let account = model.entitiesByName["Account"], let record = model.entitiesByName["SaveRecord"] else { return model }
        let memo = AttributeDescription(name: "memo", type: .string)
        memo.renamingIdentifier = "padding"
        account.properties =
            account.properties.filter { $0.name != "padding" } + [
                memo,
                AttributeDescription(name: "openedAt", type: .date),
                RelationshipDescription(name: "branch", destinationEntityName: "Branch", inverse: "accounts", toMany: false, deleteRule: .nullify),
            ]
        let branch = EntityDescription(name: "Branch")
        branch.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "accounts", destinationEntityName: "Account", inverse: "branch", toMany: true, deleteRule: .nullify),
        ]
        record.properties = record.properties.map { property in
            guard property.name == "kind" else { return property }
            return AttributeDescription(name: "kind", type: .string, isOptional: false, defaultValue: "plain")
        }
        let entities = model.entities + [branch]
        let next = ManagedObjectModel(entities: entities)
        next.setEntities(entities.filter { $0.name != "AuditEntry" }, forConfigurationName: bankConfiguration)
        next.setEntities(entities.filter { $0.name == "AuditEntry" }, forConfigurationName: auditConfiguration)
        return next
    }

    /// The options that migrate a bank store to ``makeNext()`` when it is added: automatic,
    /// inferred, with the first version as the source model.
    public static var migrationOptions: [String: any Sendable] {
        [
            PersistentStoreOption.migratePersistentStoresAutomatically: true,
            PersistentStoreOption.inferMappingModelAutomatically: true,
            PersistentStoreOption.migrationSourceModels: [make()],
        ]
    }
}
