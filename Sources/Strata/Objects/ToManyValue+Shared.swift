extension ToManyValue {
    /// The longest lists of to-many contents kept ready to share (entities with more to-manys
    /// get a list of their own each time).
    private static let sharedListLimit = 16

    /// Lists of `count` unloaded to-manys, for counts below ``sharedListLimit``.
    private static let unloadedLists: [[ToManyValue?]] = (0..<sharedListLimit).map { [ToManyValue?](repeating: nil, count: $0) }

    /// Lists of `count` empty to-manys, for counts below ``sharedListLimit``.
    private static let emptyLists: [[ToManyValue?]] = (0..<sharedListLimit).map { [ToManyValue?](repeating: ToManyValue(), count: $0) }

    /// `count` to-manys not loaded yet (all nil): what an object gets with its row. The list is
    /// shared by every object of an entity until one of them changes its own (copy on write),
    /// so fetching or firing an object of an entity with to-manys allocates no list.
    static func unloadedList(count: Int) -> [ToManyValue?] {
        count < sharedListLimit ? unloadedLists[count] : [ToManyValue?](repeating: nil, count: count)
    }

    /// `count` empty to-manys: what an inserted object starts with (shared as above).
    static func emptyList(count: Int) -> [ToManyValue?] {
        count < sharedListLimit ? emptyLists[count] : [ToManyValue?](repeating: ToManyValue(), count: count)
    }
}
