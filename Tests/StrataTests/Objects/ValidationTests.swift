import Foundation
import Strata
import StrataTestSupport
import Testing

/// Every validation rule, passing and failing; all failures of a save in one error; a failed
/// save changes nothing.
@Suite("Validation")
struct ValidationTests {
    /// One rule: a change that breaks it (with the code and key the save must report) and one
    /// that satisfies it.
    struct Rule: Sendable, CustomStringConvertible {
        let description: String
        let code: Int
        let key: String
        let breaks: @Sendable (Account) -> Void
        let satisfies: @Sendable (Account) -> Void
    }

    static let rules: [Rule] = [
        Rule(
            description: "required attribute", code: 1570, key: "username",
            breaks: { $0.setValue(nil, forKey: "username") }, satisfies: { $0.username = "ann" }),
        Rule(
            description: "minimum length", code: 1670, key: "username",
            breaks: { $0.username = "an" }, satisfies: { $0.username = "ann" }),
        Rule(
            description: "maximum length", code: 1660, key: "username",
            breaks: { $0.username = "abcdefghijklm" }, satisfies: { $0.username = "abcdefghijkl" }),
        Rule(
            description: "regular expression", code: 1680, key: "username",
            breaks: { $0.username = "Ann!" }, satisfies: { $0.username = "ann_2" }),
        Rule(
            description: "minimum value", code: 1620, key: "age",
            breaks: { $0.age = -1 }, satisfies: { $0.age = 0 }),
        Rule(
            description: "maximum value", code: 1610, key: "age",
            breaks: { $0.age = 151 }, satisfies: { $0.age = 150 }),
        Rule(
            description: "integer type range", code: 1610, key: "level",
            breaks: { $0.setValue(Int64(40_000), forKey: "level") }, satisfies: { $0.setValue(Int64(32_767), forKey: "level") }),
        Rule(
            description: "double minimum", code: 1620, key: "score",
            breaks: { $0.score = -0.5 }, satisfies: { $0.score = 0 }),
        Rule(
            description: "double maximum", code: 1610, key: "score",
            breaks: { $0.score = 1.5 }, satisfies: { $0.score = 1 }),
        Rule(
            description: "earliest date", code: 1640, key: "birthday",
            breaks: { $0.birthday = Account.earliest.addingTimeInterval(-1) }, satisfies: { $0.birthday = Account.earliest }),
        Rule(
            description: "latest date", code: 1630, key: "birthday",
            breaks: { $0.birthday = Account.latest.addingTimeInterval(1) }, satisfies: { $0.birthday = Account.latest }),
        Rule(
            description: "validation predicate string with message", code: 1550, key: "code",
            breaks: { $0.code = "XY-1" }, satisfies: { $0.code = "AC-1" }),
        Rule(
            description: "second validation predicate", code: 1550, key: "code",
            breaks: { $0.code = "AC-000" }, satisfies: { $0.code = "AC-001" }),
        Rule(
            description: "closure validation rule", code: 1550, key: "email",
            breaks: { $0.email = "nowhere" }, satisfies: { $0.email = "a@b.c" }),
        Rule(
            description: "required transient attribute", code: 1570, key: "session",
            breaks: { $0.setValue(nil, forKey: "session") }, satisfies: { $0.setValue("s", forKey: "session") }),
        Rule(
            description: "validateValue(_:forKey:) override", code: 1550, key: "username",
            breaks: { $0.username = "root" }, satisfies: { $0.username = "rooty" }),
        Rule(
            description: "validateForInsert/Update override (two properties)", code: 1550, key: "level",
            breaks: {
                $0.age = 10
                $0.level = 9
            },
            satisfies: {
                $0.age = 30
                $0.level = 9
            }),
    ]

    @Test("each rule fails with its code and key, and passes when satisfied", arguments: rules)
    func rule(_ rule: Rule) throws {
        let stack = try TestStack(model: Account.model())
        let context = stack.newContext()
        try context.performAndWait {
            let account = Account.valid(in: context)
            rule.breaks(account)
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.code == rule.code, "\(error)")
            #expect(error.key == rule.key)
            #expect(error.entityName == "Account")
            #expect(error.objectID == account.objectID)
            rule.satisfies(account)
            try context.save()
            // The same rule on update.
            rule.breaks(account)
            let again = try #require(throws: StrataError.self) { try context.save() }
            #expect(again.code == rule.code)
            rule.satisfies(account)
            try context.save()
        }
    }

    @Test("predicate messages are the model's warnings")
    func predicateMessages() throws {
        let stack = try TestStack(model: Account.model())
        let context = stack.newContext()
        try context.performAndWait {
            let account = Account.valid(in: context)
            account.code = "XY"
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.message == "code must look like AC-123")
        }
    }

    @Test("relationship counts: required to-one, minCount, maxCount", arguments: TestStack.Kind.allCases)
    func counts(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Account.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let badge = ManagedObject(entity: try #require(stack.model.entitiesByName["Badge"]), insertInto: context)
            let missing = try #require(throws: StrataError.self) { try context.save() }
            #expect(missing.code == StrataError.Code.validationMissingMandatoryProperty && missing.key == "owner")
            let owner = Account.valid(in: context)
            badge.setValue(owner, forKey: "owner")
            try context.save()

            let team = ManagedObject(entity: try #require(stack.model.entitiesByName["Team"]), insertInto: context)
            try context.save()  // optional and empty: fine
            let members = team.mutableSetValue(forKey: "members")
            members.add(owner)
            let tooFew = try #require(throws: StrataError.self) { try context.save() }
            #expect(tooFew.code == StrataError.Code.validationRelationshipLacksMinimumCount && tooFew.key == "members")
            let others = (0..<3).map { _ in Account.valid(in: context) }  // held: transient values live in memory only
            members.addObjects(from: others)
            let tooMany = try #require(throws: StrataError.self) { try context.save() }
            #expect(tooMany.code == StrataError.Code.validationRelationshipExceedsMaximumCount)
            #expect(tooMany.message.contains("at most 3"))
            members.remove(owner)
            try context.save()
            // A validation predicate on a to-many sees the set of objects as SELF.
            let banned = Account.valid(in: context)
            banned.username = "banned"
            try context.save()
            members.remove(others[0])
            members.add(banned)
            let predicate = try #require(throws: StrataError.self) { try context.save() }
            #expect(predicate.message == "banned accounts cannot join a team" && predicate.key == "members")
        }
    }

    @Test("all failures of one save come in one 1560 error listing object, key and reason", arguments: TestStack.Kind.allCases)
    func collected(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Account.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let kept = Account.valid(in: context)
            kept.username = "kept"
            try context.save()

            let first = Account.valid(in: context)
            first.username = "x"  // too short
            first.age = 200  // too large
            let second = Account.valid(in: context)
            second.code = "nope"  // predicate
            kept.score = 7  // an update breaking a rule
            kept.username = "kept2"
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.code == StrataError.Code.validationMultipleErrors)
            let failures = error.underlyingErrors
            #expect(failures.count == 4)
            #expect(
                Set(failures.map { "\($0.objectID == first.objectID ? "first" : $0.objectID == second.objectID ? "second" : "kept").\($0.key ?? "?")" })
                    == ["first.username", "first.age", "second.code", "kept.score"])
            #expect(failures.allSatisfy { !$0.message.isEmpty && $0.entityName == "Account" })
            #expect(error.description.contains("username") && error.description.contains("score"))

            // Nothing reached the store; the context kept everything.
            #expect(context.insertedObjects == [first, second])
            #expect(context.updatedObjects == [kept])
            #expect(kept.username == "kept2")
            let reader = stack.newContext()
            let stored = try reader.performAndWait {
                try reader.fetch(FetchRequest<Account>(entityName: "Account")).map(\.username)
            }
            #expect(stored == ["kept"])

            // Fix and save again.
            first.username = "first"
            first.age = 20
            second.code = "AC-7"
            kept.score = 0.7
            try context.save()
        }
        try stack.reopen()
        let reopened = stack.newContext()
        try reopened.performAndWait {
            let request = FetchRequest<Account>(entityName: "Account")
            request.sortDescriptors = [ObjectSortDescriptor(key: "username", ascending: true)]
            let accounts = try reopened.fetch(request)
            #expect(accounts.map(\.username) == ["first", "kept2", "valid"])
            #expect(accounts.first { $0.username == "kept2" }?.score == 0.7)
            #expect(accounts.first { $0.username == "valid" }?.code == "AC-7")
        }
    }

    @Test("validateForDelete override refuses a delete")
    func validateForDelete() throws {
        let stack = try TestStack(model: Account.model())
        let context = stack.newContext()
        try context.performAndWait {
            let admin = Account.valid(in: context)
            admin.username = "admin"
            try context.save()
            context.delete(admin)
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.message == "admin cannot be deleted")
            context.rollback()
            #expect(!admin.isDeleted)
        }
    }

    @Test("validateValue(_:forKey:) checks a value before it is set")
    func validateValueDirectly() throws {
        let stack = try TestStack(model: Account.model())
        let context = stack.newContext()
        try context.performAndWait {
            let account = Account.valid(in: context)
            try account.validateValue("bob", forKey: "username")
            let short = try #require(throws: StrataError.self) { try account.validateValue("b", forKey: "username") }
            #expect(short.code == StrataError.Code.validationStringTooShort)
            let several = try #require(throws: StrataError.self) { try account.validateValue("B!", forKey: "username") }
            #expect(several.code == StrataError.Code.validationMultipleErrors)
            #expect(Set(several.underlyingErrors.map(\.code)) == [1670, 1680])
            let reserved = try #require(throws: StrataError.self) { try account.validateValue("root", forKey: "username") }
            #expect(reserved.message.contains("reserved"))
            let range = try #require(throws: StrataError.self) { try account.validateValue(Int64(1_000), forKey: "age") }
            #expect(range.code == StrataError.Code.validationNumberTooLarge)
            try account.validateValue("AC-12", forKey: "code")
            #expect(throws: StrataError.self) { try account.validateValue("AC-000", forKey: "code") }
            #expect(throws: StrataError.self) { try account.validateValue("nobody", forKey: "email") }
            let required = try #require(throws: StrataError.self) { try account.validateValue(nil, forKey: "username") }
            #expect(required.code == StrataError.Code.validationMissingMandatoryProperty)
            #expect(throws: StrataError.self) { try account.validateValue(1, forKey: "noSuchKey") }
            #expect(account.username == "valid")
        }
    }
}

/// An account whose model has every kind of validation rule, plus overrides.
final class Account: ManagedObject {
    @Attribute("username") var username: String
    @Attribute("age") var age: Int16?
    @Attribute("level") var level: Int16
    @Attribute("score") var score: Double?
    @Attribute("birthday") var birthday: Date?
    @Attribute("code") var code: String?
    @Attribute("email") var email: String?

    static let earliest = Date(timeIntervalSince1970: -2_208_988_800)  // 1900-01-01
    static let latest = Date(timeIntervalSince1970: 4_102_444_800)  // 2100-01-01

    /// A new account that passes every rule.
    static func valid(in context: ManagedObjectContext) -> Account {
        let account = Account(context: context)
        account.username = "valid"
        account.setValue("session", forKey: "session")
        return account
    }

    override func validateValue(_ value: Any?, forKey key: String) throws {
        if key == "username", value as? String == "root" {
            throw StrataError(code: StrataError.Code.managedObjectValidation, message: "username 'root' is reserved", entityName: entity.name, key: key, objectID: objectID)
        }
        try super.validateValue(value, forKey: key)
    }

    private func checkLevel() throws {
        if let age, age < 18, level > 5 {
            throw StrataError(code: StrataError.Code.managedObjectValidation, message: "minors stay below level 6", entityName: entity.name, key: "level", objectID: objectID)
        }
    }

    override func validateForInsert() throws {
        try super.validateForInsert()
        try checkLevel()
    }

    override func validateForUpdate() throws {
        try super.validateForUpdate()
        try checkLevel()
    }

    override func validateForDelete() throws {
        try super.validateForDelete()
        if username == "admin" {
            throw StrataError(code: StrataError.Code.managedObjectValidation, message: "admin cannot be deleted", entityName: entity.name, objectID: objectID)
        }
    }

    static func model() -> ManagedObjectModel {
        let account = EntityDescription(name: "Account", managedObjectClass: Account.self)
        let team = EntityDescription(name: "Team")
        let badge = EntityDescription(name: "Badge")
        let username = AttributeDescription(name: "username", type: .string, isOptional: false, defaultValue: "")
        username.minLength = 3
        username.maxLength = 12
        username.regularExpression = "[a-z][a-z0-9_]*"
        let age = AttributeDescription(name: "age", type: .integer16)
        age.minValue = Int16(0)
        age.maxValue = Int16(150)
        let score = AttributeDescription(name: "score", type: .double)
        score.minValue = 0.0
        score.maxValue = 1.0
        let birthday = AttributeDescription(name: "birthday", type: .date)
        birthday.minValue = earliest
        birthday.maxValue = latest
        let code = AttributeDescription(name: "code", type: .string)
        code.setValidationPredicates(
            [ObjectPredicate(format: "SELF MATCHES 'AC-[0-9]+'"), ObjectPredicate(format: "SELF != 'AC-000'")],
            withValidationWarnings: ["code must look like AC-123", "AC-000 is not a code"])
        let email = AttributeDescription(name: "email", type: .string)
        email.validationRules = [ValidationRule("email needs an @") { value in (value as? String).map { $0.contains("@") } ?? true }]
        let session = AttributeDescription(name: "session", type: .string, isOptional: false)
        session.isTransient = true
        account.properties = [
            username, age,
            AttributeDescription(name: "level", type: .integer16, isOptional: false, defaultValue: Int16(0)),
            score, birthday, code, email, session,
            RelationshipDescription(name: "team", destination: team, inverse: "members"),
            RelationshipDescription(name: "badges", destination: badge, inverse: "owner", toMany: true, deleteRule: .cascade),
        ]
        let members = RelationshipDescription(name: "members", destination: account, inverse: "team", toMany: true, minCount: 2, maxCount: 3)
        members.setValidationPredicates([ObjectPredicate(format: "NOT (ANY SELF.username == 'banned')")], withValidationWarnings: ["banned accounts cannot join a team"])
        team.properties = [members]
        badge.properties = [
            RelationshipDescription(name: "owner", destination: account, inverse: "badges", isOptional: false)
        ]
        return ManagedObjectModel(entities: [account, team, badge])
    }
}
