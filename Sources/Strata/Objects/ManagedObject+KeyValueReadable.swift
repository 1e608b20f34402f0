/// Managed objects as the predicate language reads them (`Predicates/KeyPathWalker.swift`).
extension ManagedObject: KeyValueReadable {}

extension Set: KeyValueReadableCollection where Element == ManagedObject {
    var keyValueObjects: [any KeyValueReadable] { map { $0 } }
    var isOrderedKeyValueCollection: Bool { false }
}

extension Array: KeyValueReadableCollection where Element == ManagedObject {
    var keyValueObjects: [any KeyValueReadable] { map { $0 } }
    var isOrderedKeyValueCollection: Bool { true }
}
