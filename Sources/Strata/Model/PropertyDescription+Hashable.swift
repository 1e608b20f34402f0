/// Properties are equal only to themselves, as Core Data's `NSPropertyDescription` objects are,
/// so they can go in sets (``PersistentHistoryChange/updatedProperties``). Callable from any
/// queue.
extension PropertyDescription: Hashable {
    public static func == (lhs: PropertyDescription, rhs: PropertyDescription) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
