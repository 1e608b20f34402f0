extension UnsafeMutablePointer {
    /// Initializes `count` elements from `source`, one at a time. Unlike
    /// `initialize(from:count:)`, which calls the runtime's generic array copy
    /// (`swift_arrayInitWithCopy`, one value-witness call a multi-payload enum element), the loop
    /// is specialized for the element type: perf of the edit-and-save pair found the generic
    /// copy to be most of the time of copying an object's values.
    @inline(__always)
    func initializeElementwise(from source: UnsafePointer<Pointee>, count: Int) {
        for index in 0..<count { (self + index).initialize(to: source[index]) }
    }
}
