import Foundation

/// A validation rule written as a closure: the value passes when `test` returns true, else the
/// save fails with `message` (code 1550, naming the object and key). The closure form of a
/// validation predicate, for rules a predicate string cannot say.
///
/// ```swift
/// let email = AttributeDescription(name: "email", type: .string)
/// email.validationRules = [ValidationRule("email needs an @") { ($0 as? String)?.contains("@") ?? true }]
/// ```
/// The closure receives the property's value as `value(forKey:)` returns it and runs on the
/// saving context's queue; it must not touch other contexts. Like validation predicates, rules
/// are not run for a nil value (whether a property may be nil is `isOptional`'s job).
public struct ValidationRule: Sendable {
    /// The message reported when the rule fails.
    public let message: String
    let test: @Sendable (Any?) -> Bool

    /// A rule that passes when `test` returns true for the value.
    public init(_ message: String, _ test: @escaping @Sendable (Any?) -> Bool) {
        self.message = message
        self.test = test
    }

    /// Whether `value` passes.
    public func passes(_ value: Any?) -> Bool { test(value) }
}
