import Foundation
import Strata
import StrataTestSupport

/// A member of a team, for the `#Predicate` tests. Its table lists only the two-step key path
/// `\.team?.name`: the other key paths are found by probing the property wrappers.
final class MacroMember: ManagedObject, KeyPathKeyed {
    @Attribute("serial") var serial: Int64
    @Attribute("name") var name: String
    @Attribute("nick") var nick: String?
    @Attribute("age") var age: Int64
    @Attribute("score") var score: Double?
    @Attribute("active") var active: Bool
    @Relationship("team") var team: MacroTeam?

    /// A computed property: no model key, so key paths to it are refused.
    var label: String { name + "!" }

    static var keyPathKeys: [PartialKeyPath<MacroMember>: String] { [\MacroMember.team?.name: "team.name"] }
}

/// A team of members (no key table).
final class MacroTeam: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("city") var city: String?
    @Relationship("members") var members: Set<MacroMember>
}

/// The model and a seeded data set shared by the `#Predicate` tests.
enum PredicateMacroFixture {
    static func model() -> ManagedObjectModel {
        let member = EntityDescription(name: "MacroMember", managedObjectClass: MacroMember.self)
        let team = EntityDescription(name: "MacroTeam", managedObjectClass: MacroTeam.self)
        member.properties = [
            AttributeDescription(name: "serial", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "nick", type: .string),
            AttributeDescription(name: "age", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "score", type: .double),
            AttributeDescription(name: "active", type: .boolean, isOptional: false, defaultValue: false),
            RelationshipDescription(name: "team", destinationEntityName: "MacroTeam", inverse: "members", deleteRule: .nullify),
        ]
        team.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "city", type: .string),
            RelationshipDescription(name: "members", destinationEntityName: "MacroMember", inverse: "team", toMany: true, deleteRule: .nullify),
        ]
        return ManagedObjectModel(entities: [member, team])
    }

    static let names = ["Ann", "anna", "Andrés", "Bob", "bobby", "Émile", "Zoë", "", "Al", "Cy", "ann", "ANNE"]
    static let nicks: [String?] = [nil, "Red", "ace", "Ace", "zed", ""]
    static let teamNames = ["Red", "Blue", "Green", "Amber"]
    static let cities: [String?] = ["Oslo", nil, "Lima", "Oslo"]

    /// Inserts `count` members (serials from `firstSerial`) and the four teams into `context`,
    /// seeded; on the context's queue.
    @discardableResult
    static func populate(_ context: ManagedObjectContext, count: Int, firstSerial: Int64 = 0, seed: UInt64) -> [MacroTeam] {
        var random = SeededRandom(seed: seed)
        var teams: [MacroTeam] = []
        for (index, teamName) in teamNames.enumerated() {
            let team = MacroTeam(context: context)
            team.name = teamName
            team.city = cities[index]
            teams.append(team)
        }
        for serial in 0..<count {
            let member = MacroMember(context: context)
            member.serial = firstSerial + Int64(serial)
            member.name = names[random.below(names.count)]
            member.nick = nicks[random.below(nicks.count)]
            member.age = Int64(random.below(90)) - 5
            member.score = random.chance(0.25) ? nil : Double(random.below(400)) / 100 - 1
            member.active = random.chance(0.5)
            member.team = random.chance(0.2) ? nil : teams[random.below(teams.count)]
        }
        return teams
    }
}
