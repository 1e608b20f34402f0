import Foundation
import Strata
import StrataPostgreSQL
import Testing

@testable import StrataPostgreSQLStore

/// The SQL the PostgreSQL fetch compiler writes, pinned without a server.
///
/// Core Data's rule: a fetch returns the same objects whatever store runs it, so the compiler
/// writes SQL only for what it can show PostgreSQL evaluates exactly as Strata's in-memory engine
/// (`PostgreSQLCompilerDifferentialTests` checks that on a server); the rest is left out of the
/// `WHERE` clause and finished in memory.
@Suite("PostgreSQL fetch compiler: SQL text and parameters")
struct PostgreSQLCompilerTests {
    /// `Order` (reserved) with attributes named `select`, `group`, `user`… and a to-one `user` to
    /// `Customer`, whose to-many `orders` is stored in `Order."user"`; a many-to-many `tags`
    /// (join table); a sub-entity `RushOrder`.
    struct Model {
        let model: ManagedObjectModel
        let schema: PostgreSQLSchema
        let order: EntityDescription
        let rush: EntityDescription

        init() throws {
            let order = EntityDescription(name: "Order")
            let rush = EntityDescription(name: "RushOrder")
            let customer = EntityDescription(name: "Customer")
            let tag = EntityDescription(name: "Tag")
            order.subentities = [rush]
            order.properties = [
                AttributeDescription(name: "select", type: .string),
                AttributeDescription(name: "group", type: .integer32),
                AttributeDescription(name: "total", type: .double),
                AttributeDescription(name: "price", type: .decimal),
                AttributeDescription(name: "when", type: .date),
                AttributeDescription(name: "paid", type: .boolean),
                AttributeDescription(name: "blob", type: .transformable),
                RelationshipDescription(name: "user", destination: customer, inverse: "orders"),
                RelationshipDescription(name: "tags", destination: tag, inverse: "orders", toMany: true),
            ]
            rush.properties = [AttributeDescription(name: "level", type: .integer16)]
            customer.properties = [
                AttributeDescription(name: "name", type: .string),
                RelationshipDescription(name: "orders", destination: order, inverse: "user", toMany: true),
            ]
            tag.properties = [
                AttributeDescription(name: "label", type: .string),
                RelationshipDescription(name: "orders", destination: order, inverse: "tags", toMany: true),
            ]
            let model = ManagedObjectModel(entities: [order, rush, customer, tag])
            self.model = model
            self.schema = try PostgreSQLSchema(model: model, configurationName: nil, namespace: "app")
            self.order = order
            self.rush = rush
        }

        func compile(_ format: String, _ arguments: Any..., sorts: [ObjectSortDescriptor] = [], entity: EntityDescription? = nil, includesSubentities: Bool = true) -> PostgreSQLCompiledFetch {
            PostgreSQLFetchCompiler.compile(
                entity: entity ?? order, includesSubentities: includesSubentities, predicate: ObjectPredicate(format: format, argumentArray: arguments), sortDescriptors: sorts,
                schema: schema, tableAlias: "t", objectKey: { _ in nil })
        }
    }

    static let entity = #""t"."$entity" IN ($1, $2)"#

    @Test("reserved words are quoted, the entity filter comes first, values are parameters")
    func reservedWords() throws {
        let model = try Model()
        let fetch = model.compile("select == %@ AND group > 3", "x'; DROP TABLE t; --")
        #expect(fetch.whereClause == Self.entity + #" AND "t"."select" COLLATE "C" = $3 AND "t"."group" > $4"#)
        #expect(fetch.parameters == [.text("Order"), .text("RushOrder"), .text("x'; DROP TABLE t; --"), .int64(3)])
        #expect(fetch.predicateIsExact)
        #expect(fetch.orderBy == #""t"."$pk""#)
        let only = model.compile("TRUEPREDICATE", includesSubentities: false)
        #expect(only.whereClause == #""t"."$entity" = $1"#)
    }

    // Every row of a table holding one entity (a root without sub-entities) is that entity's, so
    // its fetches go without the entity filter, as the SQLite store reads such a table without its
    // entity column.
    @Test("a table of one entity is read without the entity filter")
    func oneEntityTable() throws {
        let model = try Model()
        let customer = try #require(model.model.entitiesByName["Customer"])
        let all = model.compile("TRUEPREDICATE", entity: customer)
        #expect(all.whereClause == "TRUE")
        #expect(all.parameters.isEmpty)
        let named = model.compile("name == 'a'", entity: customer)
        #expect(named.whereClause == #""t"."name" COLLATE "C" = $1"#)
        #expect(named.parameters == [.text("a")])
        #expect(named.orderBy == #""t"."$pk""#)
        // A sub-entity's fetch keeps its filter: its table holds its root's rows too.
        #expect(model.compile("TRUEPREDICATE", entity: model.rush).whereClause == #""t"."$entity" = $1"#)
    }

    // Core Data reads a row of an inheritance tree's table as the entity the row names. A table of
    // one entity has no other kind of row: its reads select no entity column (every row would
    // carry the same name), and the columns after it move up by one.
    @Test("a table of one entity is selected without its entity column; a table of several with it")
    func entityColumnOnlyWhereNeeded() throws {
        let model = try Model()
        let plans = PostgreSQLEntityPlan.plans(for: model.model, configurationName: nil, schema: model.schema)
        let customer = try #require(plans["Customer"])
        #expect(customer.selectList.hasPrefix(#""$pk", "$version", "#))
        #expect(!customer.selectList.contains("$entity"))
        #expect(customer.entityColumnIndex == nil)
        #expect(customer.versionColumnIndex == 1)
        #expect(customer.fields.map(\.columnIndex) == [2])
        for plan in [try #require(plans["Order"]), try #require(plans["RushOrder"])] {
            #expect(plan.selectList.hasPrefix(#""$pk", "$entity", "$version", "#))
            #expect(plan.entityColumnIndex == 1)
            #expect(plan.versionColumnIndex == 2)
            #expect(plan.fields.allSatisfy { $0.columnIndex >= 3 })
        }
        // Every field's index is its column's place in the select list.
        for plan in plans.values {
            let columns = plan.selectList.components(separatedBy: ", ")
            for field in plan.fields { #expect(columns[field.columnIndex] == field.quotedColumn, "\(plan.entity.name).\(field.key)") }
        }
    }

    @Test("nil: == nil is IS NULL, != a value keeps nil rows (IS DISTINCT FROM), ordering with nil is false")
    func nilComparisons() throws {
        let model = try Model()
        #expect(model.compile("select == nil").whereClause == Self.entity + #" AND "t"."select" IS NULL"#)
        #expect(model.compile("select != 'a'").whereClause == Self.entity + #" AND "t"."select" COLLATE "C" IS DISTINCT FROM $3"#)
        #expect(model.compile("group < nil").whereClause == Self.entity + " AND FALSE")
        #expect(model.compile("blob != nil").whereClause == Self.entity + #" AND "t"."blob" IS NOT NULL"#)
    }

    @Test("numbers: an integer against a double compares as integers; NaN is never ordered")
    func numbers() throws {
        let model = try Model()
        let half = model.compile("group < 2.5")
        #expect(half.whereClause == Self.entity + #" AND "t"."group" < $3"#)
        #expect(half.parameters.last == .int64(3))
        #expect(model.compile("group == 2.5").whereClause == Self.entity + " AND FALSE")
        #expect(model.compile("group < 1e300").whereClause == Self.entity + #" AND "t"."group" IS NOT NULL"#)
        let double = model.compile("total > 1")
        #expect(double.whereClause == Self.entity + #" AND ("t"."total" > $3 AND "t"."total" <> 'NaN'::float8)"#)
        #expect(double.parameters.last == .double(1))
        #expect(model.compile("total < %@", Double.nan).whereClause == Self.entity + " AND FALSE")
        #expect(model.compile("paid == YES").whereClause == Self.entity + #" AND CAST("t"."paid" AS integer) = $3"#)
        let decimal = model.compile("price >= %@", Decimal(string: "12.50", locale: Locale(identifier: "en_US_POSIX")) ?? 0)
        #expect(decimal.whereClause == Self.entity + #" AND "t"."price" >= $3::numeric"#)
        #expect(decimal.parameters.last == .text("12.5"))
        let date = model.compile("when < %@", Date(timeIntervalSinceReferenceDate: 60))
        #expect(date.parameters.last == .double(60))
    }

    @Test("strings: byte order, BEGINSWITH/ENDSWITH/CONTAINS by characters, IN and BETWEEN")
    func strings() throws {
        let model = try Model()
        #expect(model.compile("select BEGINSWITH 'é😀'").whereClause == Self.entity + #" AND left("t"."select", 2) COLLATE "C" = $3"#)
        #expect(model.compile("select ENDSWITH 'z'").whereClause == Self.entity + #" AND right("t"."select", 1) COLLATE "C" = $3"#)
        #expect(model.compile("select CONTAINS 'z'").whereClause == Self.entity + #" AND strpos("t"."select" COLLATE "C", $3) > 0"#)
        #expect(model.compile("select BEGINSWITH ''").whereClause == Self.entity + #" AND "t"."select" IS NOT NULL"#)
        #expect(model.compile("select IN 'abc'").whereClause == Self.entity + #" AND strpos($3, "t"."select") > 0"#)
        #expect(
            model.compile("select IN {'a', nil}").whereClause == Self.entity + #" AND ("t"."select" COLLATE "C" = $3 OR "t"."select" IS NULL)"#)
        #expect(
            model.compile("group BETWEEN {1, 5}").whereClause == Self.entity + #" AND ("t"."group" >= $3 AND "t"."group" <= $4)"#)
    }

    @Test("[c], [d], LIKE, MATCHES, functions and key-versus-key stay in memory: the WHERE clause is a superset")
    func leftToMemory() throws {
        let model = try Model()
        for format in ["select ==[c] 'a'", "select BEGINSWITH[cd] 'e'", "select LIKE 'a*'", "select MATCHES 'a.*'", "group + 1 > 2", "group < total", "ANY tags.label LIKE 'x'"] {
            let fetch = model.compile("group > 1 AND " + format)
            #expect(!fetch.predicateIsExact, "\(format)")
            #expect(fetch.whereClause == Self.entity + #" AND "t"."group" > $3"#, "\(format)")
            #expect(fetch.parameters.count == 3, "\(format)")
            #expect(fetch.compiledConjuncts == 1 && fetch.memoryConjuncts == 1)
            #expect(!fetch.canWindowInSQL)
        }
    }

    @Test("an OR or a NOT with a part that is not exact is dropped whole (the negation of a superset is no superset)")
    func orAndNotNeedExactParts() throws {
        let model = try Model()
        let or = model.compile("group > 1 AND (select ==[c] 'a' OR group == 7)")
        #expect(or.whereClause == Self.entity + #" AND "t"."group" > $3"#)
        #expect(!or.predicateIsExact)
        let not = model.compile("NOT (select ==[c] 'a' AND group == 7)")
        #expect(not.whereClause == Self.entity)
        #expect(!not.predicateIsExact)
        let exact = model.compile("NOT (select == 'a' OR group == 7)")
        #expect(exact.predicateIsExact)
        #expect(exact.whereClause == Self.entity + #" AND NOT COALESCE(("t"."select" COLLATE "C" = $3 OR "t"."group" = $4), FALSE)"#)
    }

    @Test("two key paths of one family: nil equals nil, ordering with nil or NaN is false; an integer against a double stays in memory")
    func keyAgainstKey() throws {
        let model = try Model()
        let names = model.compile("select == user.name")
        #expect(
            names.whereClause
                == Self.entity + #" AND "t"."select" COLLATE "C" IS NOT DISTINCT FROM (SELECT "t$1"."name" FROM "app"."Customer" AS "t$1" WHERE "t$1"."$pk" = "t"."user") COLLATE "C""#
        )
        #expect(model.compile("paid != group").whereClause == Self.entity + #" AND CAST("t"."paid" AS integer) IS DISTINCT FROM "t"."group""#)
        #expect(model.compile("total < total").whereClause == Self.entity + #" AND ("t"."total" < "t"."total" AND "t"."total" <> 'NaN'::float8 AND "t"."total" <> 'NaN'::float8)"#)
        #expect(!model.compile("group < total").predicateIsExact)
        #expect(model.compile("select IN user.name").whereClause.hasSuffix(#"WHERE "t$1"."$pk" = "t"."user") COLLATE "C", "t"."select") > 0"#))
        #expect(!model.compile("select ==[c] user.name").predicateIsExact)
    }

    @Test("to-one key paths read the target row by key; to-many quantifiers and @count are subqueries on the foreign key or join table")
    func relationships() throws {
        let model = try Model()
        #expect(
            model.compile("user.name == 'Ann'").whereClause
                == Self.entity + #" AND (SELECT "t$1"."name" FROM "app"."Customer" AS "t$1" WHERE "t$1"."$pk" = "t"."user") COLLATE "C" = $3"#)
        #expect(model.compile("user == nil").whereClause == Self.entity + #" AND "t"."user" IS NULL"#)
        #expect(
            model.compile("ANY tags.label == 'x'").whereClause
                == Self.entity
                + #" AND EXISTS (SELECT 1 FROM "app"."Order$tags" AS "t$2" JOIN "app"."Tag" AS "t$1" ON "t$1"."$pk" = "t$2"."$member" WHERE "t$2"."$owner" = "t"."$pk" AND COALESCE("t$1"."label" COLLATE "C" = $3, FALSE))"#
        )
        // From the other side of the many-to-many, the join table's columns swap roles (`Tag`'s
        // table holds no other entity: no entity filter).
        let fromTags = PostgreSQLFetchCompiler.compile(
            entity: model.model.entitiesByName["Tag"] ?? model.order, includesSubentities: true, predicate: ObjectPredicate(format: "ANY orders.group == 1"), sortDescriptors: [],
            schema: model.schema, tableAlias: "t", objectKey: { _ in nil })
        #expect(
            fromTags.whereClause
                == #"EXISTS (SELECT 1 FROM "app"."Order$tags" AS "t$2" JOIN "app"."Order" AS "t$1" ON "t$1"."$pk" = "t$2"."$owner" WHERE "t$2"."$member" = "t"."$pk" AND COALESCE("t$1"."group" = $1, FALSE))"#
        )
        let all = model.compile("ALL user.orders.group > 2").whereClause
        #expect(all == Self.entity + #" AND NOT EXISTS (SELECT 1 FROM "app"."Order" AS "t$1" WHERE "t$1"."user" = "t"."user" AND NOT COALESCE("t$1"."group" > $3, FALSE))"#)
        let count = model.compile("SUBQUERY(tags, $x, $x.label BEGINSWITH 'a').@count >= 2")
        #expect(count.predicateIsExact)
        #expect(count.whereClause.contains("(SELECT count(*) FROM"))
        #expect(count.whereClause.hasSuffix(#"COALESCE(left("t$1"."label", 1) COLLATE "C" = $3, FALSE)) >= $4"#))
    }

    @Test("SELF and to-ones compare by key; an ID of another store or tree matches nothing")
    func objectIDs() throws {
        let model = try Model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model.model)
        try coordinator.addPersistentStore(type: .inMemory)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let (order, customer) = try context.performAndWait {
            let order = ManagedObject(entity: model.order, insertInto: context)
            let customer = ManagedObject(entity: model.model.entitiesByName["Customer"] ?? model.order, insertInto: context)
            try context.save()
            return (order.objectID, customer.objectID)
        }
        let keys: [ManagedObjectID: Int64] = [order: 41, customer: 42]
        func compile(_ format: String, _ argument: Any) -> PostgreSQLCompiledFetch {
            PostgreSQLFetchCompiler.compile(
                entity: model.order, includesSubentities: true, predicate: ObjectPredicate(format: format, argumentArray: [argument]), sortDescriptors: [],
                schema: model.schema, tableAlias: "t", objectKey: { keys[$0] })
        }
        let selfEqual = compile("SELF == %@", order)
        #expect(selfEqual.whereClause == Self.entity + #" AND "t"."$pk" = $3"#)
        #expect(selfEqual.parameters.last == .int64(41))
        #expect(compile("SELF == %@", customer).whereClause == Self.entity + " AND FALSE")
        #expect(compile("SELF != %@", customer).whereClause == Self.entity)
        #expect(compile("SELF IN %@", [order, customer]).whereClause == Self.entity + #" AND "t"."$pk" IN ($3)"#)
        #expect(compile("user == %@", customer).whereClause == Self.entity + #" AND "t"."user" = $3"#)
        #expect(compile("user != %@", customer).whereClause == Self.entity + #" AND "t"."user" IS DISTINCT FROM $3"#)
        let elsewhere = PostgreSQLFetchCompiler.compile(
            entity: model.order, includesSubentities: true, predicate: ObjectPredicate(format: "SELF == %@", order), sortDescriptors: [], schema: model.schema, tableAlias: "t",
            objectKey: { _ in nil })
        #expect(elsewhere.whereClause == Self.entity + " AND FALSE")
    }

    @Test("sorts: default strings under COLLATE \"C\", nil first ascending and last descending, ties by key; other comparators in memory")
    func sorts() throws {
        let model = try Model()
        let sorted = model.compile("TRUEPREDICATE", sorts: [ObjectSortDescriptor(key: "select"), ObjectSortDescriptor(key: "user.name", ascending: false), ObjectSortDescriptor(key: "price")])
        #expect(
            sorted.orderBy
                == #""t"."select" COLLATE "C" ASC NULLS FIRST, (SELECT "t$1"."name" FROM "app"."Customer" AS "t$1" WHERE "t$1"."$pk" = "t"."user") COLLATE "C" DESC NULLS LAST, "t"."price" ASC NULLS FIRST, "t"."$pk""#
        )
        #expect(sorted.canWindowInSQL)
        #expect(model.compile("TRUEPREDICATE", sorts: [ObjectSortDescriptor(key: "select", ascending: true, comparator: .caseInsensitive)]).orderBy == nil)
        #expect(model.compile("TRUEPREDICATE", sorts: [ObjectSortDescriptor(key: "select", ascending: true, comparator: .localizedStandard)]).orderBy == nil)
        #expect(model.compile("TRUEPREDICATE", sorts: [ObjectSortDescriptor(key: "tags.@sum.label")]).orderBy == nil)
        #expect(model.compile("TRUEPREDICATE", sorts: [ObjectSortDescriptor(key: "user")]).orderBy == nil)
        // Strata sorts a decimal @max by its text: left to memory.
        #expect(model.compile("TRUEPREDICATE", sorts: [ObjectSortDescriptor(key: "user.orders.@max.price")]).orderBy == nil)
        #expect(model.compile("TRUEPREDICATE", sorts: [ObjectSortDescriptor(key: "user.orders.@max.total")]).orderBy != nil)
        let counted = model.compile("TRUEPREDICATE", sorts: [ObjectSortDescriptor(key: "user.orders.@count", ascending: false)])
        #expect(counted.orderBy == #"(SELECT count(*) FROM "app"."Order" AS "t$1" WHERE "t$1"."user" = "t"."user") DESC NULLS LAST, "t"."$pk""#)
    }

    @Test("bad input never traps: unknown keys, odd constants and shapes only stay in memory")
    func badInput() throws {
        let model = try Model()
        for format in [
            "nosuchkey == 1", "user.nosuch == 1", "group == 'text'", "select == 3", "@count == 1", "user.@count > 1", "ANY group == 1",
            "tags == 1", "$undefined == 1", "SUBQUERY(group, $x, $x == 1).@count > 0", "group BETWEEN {1}", "FUNCTION(group, 'x') == 1", "user < %@",
        ] {
            let fetch = model.compile(format, Int64.min)
            #expect(!fetch.predicateIsExact, "\(format)")
            #expect(fetch.whereClause == Self.entity, "\(format)")
        }
        // PostgreSQL text cannot hold U+0000 (the parameter would be refused): memory compares it.
        #expect(!model.compile("select == %@", "a\u{0}b").predicateIsExact)
        #expect(!model.compile("select IN %@", "a\u{0}b").predicateIsExact)
        let huge = model.compile("group == %@ OR total == %@ OR price == %@", Int64.min, Int64.min, Decimal(Int64.min))
        #expect(huge.whereClause.hasPrefix(Self.entity))
    }
}
