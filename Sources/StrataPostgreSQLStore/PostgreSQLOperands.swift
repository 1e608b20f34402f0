import Foundation
import Strata

/// Where a key path stands while it is compiled: a row with an alias in the statement (the
/// fetched row, the element of a quantifier or `SUBQUERY`), or only a row's key (after a to-one
/// step: the foreign-key column of the previous row), and the row's entity. A value type.
struct PostgreSQLRowReference {
    /// How the row is reached.
    enum Position {
        /// A row of the statement, by its quoted alias.
        case alias(String)
        /// The row whose `"$pk"` is this SQL expression (`NULL` when a to-one on the way is nil).
        case key(String)
    }

    /// How the row is reached.
    var position: Position
    /// The entity at this point of the path (a to-one's destination entity).
    var entity: EntityDescription

    /// The row's key as SQL.
    var keySQL: String {
        switch position {
        case .alias(let alias): return PostgreSQLText.column(PostgreSQLTable.primaryKeyColumn, of: alias)
        case .key(let key): return key
        }
    }

    /// Whether ``keySQL`` can be `NULL` (a nil to-one on the way).
    var keyCanBeNull: Bool {
        if case .key = position { return true }
        return false
    }
}

/// A single value an operand compiles to: an attribute, an object (compared by key) or a count.
struct PostgreSQLScalar {
    /// What the value is.
    enum Kind {
        /// A stored attribute of this type.
        case attribute(AttributeType)
        /// An object of this entity's tree; the SQL is its key.
        case object(EntityDescription)
        /// `@count` of a to-many collection (a `bigint`, never `NULL`).
        case count
    }

    /// What the value is.
    var kind: Kind
    /// The value as SQL.
    var sql: String
    /// Whether the SQL can be `NULL`.
    var canBeNull: Bool
}

/// The objects of a to-many relationship of one row, optionally filtered by a `SUBQUERY`'s
/// predicate (compiled where the collection is used, with its variable bound to the element).
struct PostgreSQLCollection {
    /// The row owning the relationship.
    var owner: PostgreSQLRowReference
    /// The to-many relationship.
    var relationship: RelationshipDescription
    /// The entity of the elements.
    var destination: EntityDescription
    /// A `SUBQUERY`'s variable and predicate.
    var filter: (variable: String, predicate: PredicateNode)?
}

/// An operand resolved against the model, as Strata's binder resolves it: a scalar, a to-many
/// collection with the key path still to apply to each element, a constant or a list of them.
enum PostgreSQLOperand {
    /// One value per row.
    case scalar(PostgreSQLScalar)
    /// A to-many collection and the key path after it.
    case collection(PostgreSQLCollection, rest: [String])
    /// A constant.
    case constant(PredicateValue)
    /// A literal collection of constants.
    case constantList([PredicateValue])

    /// Whether the operand is a constant or a list of constants.
    var isConstant: Bool {
        switch self {
        case .constant, .constantList: return true
        default: return false
        }
    }
}

extension PostgreSQLPredicateCompiler {
    /// Resolves an expression of the predicate, or nil when it is something the SQL compiler
    /// leaves to memory (functions, arithmetic, `TERNARY`, aggregates other than `@count`).
    mutating func resolve(_ node: ExpressionNode) -> PostgreSQLOperand? {
        switch node {
        case .constant(.array(let items)): return .constantList(items)
        case .constant(let value): return .constant(value)
        case .aggregate(let items):
            var values: [PredicateValue] = []
            for item in items {
                guard case .constant(let value)? = resolve(item) else { return nil }
                values.append(value)
            }
            return .constantList(values)
        case .evaluatedObject:
            return object(at: root)
        case .keyPath(let components):
            return resolveKeyPath(from: root, components[...])
        case .variable(let name):
            return variables[name].flatMap { object(at: $0) }
        case .keyPathFrom(let base, let components):
            switch base {
            case .variable(let name):
                guard let start = variables[name] else { return nil }
                return resolveKeyPath(from: start, components[...])
            case .evaluatedObject:
                return resolveKeyPath(from: root, components[...])
            case .subquery(let collectionNode, let variable, let predicate):
                guard components == ["@count"], let collection = subquery(collectionNode, variable: variable, predicate: predicate) else { return nil }
                return count(of: collection)
            default:
                return nil
            }
        case .subquery(let collectionNode, let variable, let predicate):
            return subquery(collectionNode, variable: variable, predicate: predicate).map { .collection($0, rest: []) }
        case .function(let name, let arguments):
            // `count:`, `min:` and `max:` of a to-many collection are `@count`, `@min`, `@max`;
            // other functions stay in memory.
            guard ["count:", "min:", "max:"].contains(name), arguments.count == 1, case .collection(let collection, let rest)? = resolve(arguments[0]) else { return nil }
            if name == "count:" { return rest.isEmpty ? count(of: collection) : nil }
            guard rest.count == 1, let key = rest.first else { return nil }
            return extreme(name == "max:", key, of: collection)
        case .conditional:
            return nil
        }
    }

    /// The object at `reference`, compared by key.
    private func object(at reference: PostgreSQLRowReference) -> PostgreSQLOperand {
        .scalar(PostgreSQLScalar(kind: .object(reference.entity), sql: reference.keySQL, canBeNull: reference.keyCanBeNull))
    }

    /// `SUBQUERY(collection, $variable, predicate)` as a filtered collection.
    private mutating func subquery(_ collectionNode: ExpressionNode, variable: String, predicate: PredicateNode) -> PostgreSQLCollection? {
        guard case .collection(var collection, let rest)? = resolve(collectionNode), rest.isEmpty else { return nil }
        collection.filter = (variable, predicate)
        return collection
    }

    /// Walks `components` from `start` through to-one relationships, as Strata's binder does, to
    /// an attribute, an object, a to-many collection or `@count`.
    mutating func resolveKeyPath(from start: PostgreSQLRowReference, _ components: ArraySlice<String>) -> PostgreSQLOperand? {
        var current = start
        var index = components.startIndex
        while index < components.endIndex {
            let name = components[index]
            guard !name.hasPrefix("@"), let property = current.entity.propertiesByName[name], !property.isTransient else { return nil }
            let isLast = index == components.index(before: components.endIndex)
            switch property {
            case let attribute as AttributeDescription:
                guard isLast, let sql = columnSQL(attribute.name, of: current) else { return nil }
                return .scalar(PostgreSQLScalar(kind: .attribute(attribute.type), sql: sql, canBeNull: true))
            case let relationship as RelationshipDescription:
                guard let destination = relationship.destinationEntity else { return nil }
                if relationship.isToMany {
                    let collection = PostgreSQLCollection(owner: current, relationship: relationship, destination: destination)
                    let rest = components[components.index(after: index)...]
                    if let first = rest.first, first.hasPrefix("@") {
                        if first == "@count" { return rest.count == 1 ? count(of: collection) : nil }
                        guard rest.count == 2, let key = rest.last, first == "@min" || first == "@max" else { return nil }
                        return extreme(first == "@max", key, of: collection)
                    }
                    return .collection(collection, rest: Array(rest))
                }
                guard let key = columnSQL(relationship.name, of: current) else { return nil }
                current = PostgreSQLRowReference(position: .key(key), entity: destination)
                index = components.index(after: index)
            default:
                return nil
            }
        }
        return object(at: current)
    }

    /// The SQL of the column holding `key` (a stored attribute or to-one) of the row at
    /// `reference`: the column itself for a row of the statement, else a scalar subquery on the
    /// row's table by key (`NULL` when the key is).
    mutating func columnSQL(_ key: String, of reference: PostgreSQLRowReference) -> String? {
        guard let table = schema.table(for: reference.entity), let column = table.column(forKey: key, ofEntityNamed: reference.entity.name) else { return nil }
        switch reference.position {
        case .alias(let alias):
            return PostgreSQLText.column(column, of: alias)
        case .key(let keySQL):
            let alias = newAlias()
            return "(SELECT \(PostgreSQLText.column(column, of: alias)) FROM \(table.quotedName) AS \(alias) "
                + "WHERE \(PostgreSQLText.column(PostgreSQLTable.primaryKeyColumn, of: alias)) = \(keySQL))"
        }
    }

    /// `collection.@min.key` / `@max.key`: the least or greatest non-nil value (nil for none),
    /// as Strata orders them, which PostgreSQL's `min` and `max` share for numbers (NaN above
    /// every number), dates, decimals and text under `COLLATE "C"`; booleans as 0 and 1. Other
    /// types stay in memory.
    private mutating func extreme(_ isMaximum: Bool, _ key: String, of collection: PostgreSQLCollection) -> PostgreSQLOperand? {
        guard let attribute = collection.destination.attributesByName[key], !attribute.isTransient, let members = membersSQL(of: collection),
            let column = columnSQL(key, of: members.element)
        else { return nil }
        let function = isMaximum ? "max" : "min"
        let value: String
        switch attribute.type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal, .date: value = "\(function)(\(column))"
        case .string, .uri: value = "\(function)(\(column) COLLATE \"C\")"
        case .boolean: value = "CAST(\(function)(CAST(\(column) AS integer)) AS boolean)"
        case .binaryData, .uuid, .transformable, .objectID, .undefined: return nil
        }
        return .scalar(PostgreSQLScalar(kind: .attribute(attribute.type), sql: "(SELECT \(value) \(members.from) WHERE \(members.condition))", canBeNull: true))
    }

    /// `collection.@count` (with a `SUBQUERY`'s filter), if the collection and filter compile exactly.
    private mutating func count(of collection: PostgreSQLCollection) -> PostgreSQLOperand? {
        guard let members = membersSQL(of: collection) else { return nil }
        return .scalar(PostgreSQLScalar(kind: .count, sql: "(SELECT count(*) \(members.from) WHERE \(members.condition))", canBeNull: false))
    }
}
