import Strata

/// The rows of a to-many collection, as the parts of a subquery: `from` (`FROM …`, with the
/// join table when there is one), `condition` (the owner match and a `SUBQUERY`'s filter) and
/// the element row.
struct PostgreSQLMembers {
    /// `FROM <table> AS <element>` or `FROM <join> AS <j> JOIN <table> AS <element> ON …`.
    var from: String
    /// The condition selecting the owner's members (and those passing the filter).
    var condition: String
    /// The element row, by alias.
    var element: PostgreSQLRowReference
}

extension PostgreSQLPredicateCompiler {
    /// The members of `collection`, by the relationship's storage (the inverse's foreign-key
    /// column, or a join table); nil when the relationship has no storage in the schema or a
    /// `SUBQUERY` filter does not compile exactly.
    mutating func membersSQL(of collection: PostgreSQLCollection) -> PostgreSQLMembers? {
        guard let storage = schema.toManyStorage(of: collection.relationship, for: collection.owner.entity),
            let destinationTable = schema.table(for: collection.destination)
        else { return nil }
        let ownerKey = collection.owner.keySQL
        let alias = newAlias()
        let element = PostgreSQLRowReference(position: .alias(alias), entity: collection.destination)
        var from: String
        var condition: String
        switch storage {
        case .foreignKey(let table, let column):
            from = "FROM \(table.quotedName) AS \(alias)"
            condition = "\(PostgreSQLText.column(column, of: alias)) = \(ownerKey)"
        case .joinTable(let join, let ownerColumn, let memberColumn, _):
            let pairs = newAlias()
            from =
                "FROM \(join.quotedName) AS \(pairs) JOIN \(destinationTable.quotedName) AS \(alias) "
                + "ON \(PostgreSQLText.column(PostgreSQLTable.primaryKeyColumn, of: alias)) = \(PostgreSQLText.column(memberColumn, of: pairs))"
            condition = "\(PostgreSQLText.column(ownerColumn, of: pairs)) = \(ownerKey)"
        }
        if let filter = collection.filter {
            let saved = variables[filter.variable]
            variables[filter.variable] = element
            defer { variables[filter.variable] = saved }
            guard let compiled = compile(filter.predicate) else { return nil }
            condition += " AND " + compiled.twoValued
        }
        return PostgreSQLMembers(from: from, condition: condition, element: element)
    }
}
