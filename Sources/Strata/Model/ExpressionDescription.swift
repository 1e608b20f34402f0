import Foundation

/// A computed column of a dictionary fetch (Core Data's `NSExpressionDescription`): an
/// expression, the key its value gets in each result dictionary, and the type of that value.
///
/// ```swift
/// let total = ExpressionDescription()
/// total.name = "sumDeals"
/// total.expression = ObjectExpression(forFunction: "sum:", arguments: [ObjectExpression(forKeyPath: "specialCount")])
/// total.expressionResultType = .integer64
///
/// let request = FetchRequest<NSDictionary>(entityName: "Venue")
/// request.resultType = .dictionaryResultType
/// request.propertiesToFetch = [total]
/// ```
///
/// The aggregate functions `sum:`, `count:`, `min:`, `max:` and `average:` over a key path of
/// the fetched entity aggregate over the matching objects (per group with
/// `propertiesToGroupBy`); over a to-many key path (`count:(employees)`) they aggregate per
/// object. Arithmetic (`+ - * /` and the numeric functions) combines both. Like the other
/// property descriptions it is configured on one thread before use, then only read.
public final class ExpressionDescription: PropertyDescription, @unchecked Sendable {
    // @unchecked Sendable: configured before use, then only read (as every property description).

    /// The expression computed for each result (each group, when grouping).
    public var expression: ObjectExpression?

    /// The type of the value in the result dictionary: integers come back as `NSNumber` of an
    /// integer, `.double`/`.float` as `NSNumber` of a double, `.decimal` as `NSDecimalNumber`,
    /// `.date` as `Date`, `.string` as `String`. `.undefined` (the default) uses the natural
    /// type of the expression's value.
    public var expressionResultType: AttributeType = .undefined

    /// Creates a description with an empty name and no expression; set both before fetching.
    public init() {
        super.init(name: "", isOptional: true)
    }

    /// Creates a description named `name` computing `expression`.
    public convenience init(name: String, expression: ObjectExpression, resultType: AttributeType = .undefined) {
        self.init()
        self.name = name
        self.expression = expression
        self.expressionResultType = resultType
    }
}
