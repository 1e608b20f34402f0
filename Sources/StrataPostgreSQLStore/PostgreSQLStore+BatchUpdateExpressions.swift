import Foundation
import Strata
import StrataPostgreSQL

/// The expressions of a batch update (`visits + 1`, `price * 1.1`, a key path to another
/// attribute) as assignments of the one `UPDATE` (``PostgreSQLPredicateCompiler/newValue(of:from:)``).
struct PostgreSQLUpdateExpressions {
    /// `"column" = <expression>` for each expression, attribute-name order.
    var assignments: [String] = []
    /// For each required attribute set by an expression, a `RETURNING` column that is true when
    /// its new value is `NULL`: Strata refuses that (a required attribute), PostgreSQL would
    /// store it, so such an update is rolled back and left to Strata.
    var requiredChecks: [String] = []

    /// The SQLSTATE of the failures with which PostgreSQL refuses a value Strata computes
    /// otherwise (an integer beyond 64 bits or a 16- or 32-bit attribute's range, a double
    /// overflowing or underflowing): the update is rolled back and left to Strata, which gives
    /// its own result or validation error.
    static let numericValueOutOfRange = "22003"
}

extension PostgreSQLStore {
    /// The expressions of `request` compiled for `UPDATE <table> AS "t"`, their parameters
    /// appended to `parameters` (which hold the statement's earlier ones); nil when one of them
    /// does not compile exactly, and Strata runs the update. Pure; callable from any thread.
    func updateExpressions(_ request: StoreBatchUpdateRequest, table: PostgreSQLTable, parameters: inout [PostgreSQLValue]) throws -> PostgreSQLUpdateExpressions? {
        var result = PostgreSQLUpdateExpressions()
        let expressions = request.expressionsToUpdate
        guard !expressions.isEmpty else { return result }
        let entity = request.rows.entity
        var compiler = PostgreSQLPredicateCompiler(schema: schema, entity: entity, tableAlias: Self.fetchAlias, aliasPrefix: "u") { [weak self] id in
            self?.referenceObject(for: id)
        }
        for value in parameters { _ = compiler.parameters.add(value) }
        for (name, expression) in expressions.sorted(by: { $0.key < $1.key }) {
            guard let attribute = entity.attributesByName[name], let column = table.column(forKey: name, ofEntityNamed: entity.name),
                let value = compiler.newValue(of: attribute, from: expression)
            else { return nil }
            let quoted = try PostgreSQLIdentifier.quoted(column)
            result.assignments.append("\(quoted) = \(value)")
            if !attribute.isOptional { result.requiredChecks.append("\(PostgreSQLText.quoted(Self.fetchAlias)).\(quoted) IS NULL") }
        }
        parameters = compiler.parameters.values
        return result
    }
}
