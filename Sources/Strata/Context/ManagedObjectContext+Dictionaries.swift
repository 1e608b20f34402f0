import Foundation

/// Dictionary results (`resultType = .dictionaryResultType`).
extension ManagedObjectContext {
    func fetchDictionaries<T>(_ request: FetchRequest<T>, entity: EntityDescription) throws -> [Any] {
        throw StrataError(code: StrataError.Code.persistentStoreUnsupportedRequestType, message: "Dictionary results are not available yet", entityName: entity.name)
    }
}
