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

extension UnsafeMutablePointer {
    /// Deinitializes `count` elements, one at a time. Unlike `deinitialize(count:)`, which calls
    /// the runtime's generic array destroy (`swift_arrayDestroy`, one value-witness call an
    /// element), the loop is specialized for the element type: perf of the fault fetch found the
    /// generic destroy to be half of releasing a row snapshot.
    @inline(__always)
    func deinitializeElementwise(count: Int) {
        for index in 0..<count { _ = (self + index).move() }
    }
}
