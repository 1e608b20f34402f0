import Foundation
import Strata

/// Stacks with saved rows that several suites start from. Each writes through a context it then
/// resets, so no object of the writer stays registered and the row cache holds nothing the
/// writer's objects would keep alive.
extension TestStack {
    /// A stack of ``ModelFixtures/people()`` with `count` saved people: names "p0"…, ages
    /// 0…count−1, inserted in age order. Call from any thread but a context's queue (it waits
    /// on its own context's queue).
    public static func people(_ count: Int, kind: Kind = .sqlite) throws -> TestStack {
        let model = ModelFixtures.people()
        let stack = try TestStack(model: model, kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let entity = try fixtureEntity("Person", in: model)
            for index in 0..<count {
                let person = ManagedObject(entity: entity, insertInto: context)
                person.setValue("p\(index)", forKey: "name")
                person.setValue(index, forKey: "age")
            }
            try context.save()
            context.reset()
        }
        return stack
    }

    /// A stack of ``ModelFixtures/allTypes()`` with `count` saved ``Sample``s named "s0"…,
    /// inserted in that order. Call from any thread but a context's queue (it waits on its own
    /// context's queue).
    public static func samples(_ count: Int) throws -> TestStack {
        let stack = try TestStack(model: ModelFixtures.allTypes())
        let context = stack.newContext()
        try context.performAndWait {
            for index in 0..<count {
                let sample = Sample(context: context)
                sample.name = "s\(index)"
            }
            try context.save()
            context.reset()
        }
        return stack
    }

    /// A stack of ``ModelFixtures/ownersAndPets()`` with `owners` saved owners ("owner 0"…) and
    /// pets "pet 0"…"pet `pets − 1`", pet i belonging to owner i mod `owners`. When
    /// `petlessOwner` is given, that owner's pets are left out (it has none). Call from any
    /// thread but a context's queue (it waits on its own context's queue).
    public static func ownersAndPets(owners: Int, pets: Int, petlessOwner: Int? = nil) throws -> TestStack {
        let model = ModelFixtures.ownersAndPets()
        let stack = try TestStack(model: model)
        let context = stack.newContext()
        try context.performAndWait {
            let ownerEntity = try fixtureEntity("Owner", in: model)
            let petEntity = try fixtureEntity("Pet", in: model)
            let ownerObjects = (0..<owners).map { index -> ManagedObject in
                let owner = ManagedObject(entity: ownerEntity, insertInto: context)
                owner.setValue("owner \(index)", forKey: "name")
                return owner
            }
            for index in 0..<pets where !ownerObjects.isEmpty && index % owners != petlessOwner {
                let pet = ManagedObject(entity: petEntity, insertInto: context)
                pet.setValue("pet \(index)", forKey: "name")
                pet.setValue(ownerObjects[index % owners], forKey: "owner")
            }
            try context.save()
            context.reset()
        }
        return stack
    }

    /// The entity a fixture model defines; an error if it does not (a fixture out of step).
    private static func fixtureEntity(_ name: String, in model: ManagedObjectModel) throws -> EntityDescription {
        guard let entity = model.entitiesByName[name] else { throw MissingFixtureEntity(name: name) }
        return entity
    }

    /// A fixture model lacks the entity its seeding code expects.
    public struct MissingFixtureEntity: Error, CustomStringConvertible {
        /// The entity's name.
        public let name: String
        /// The message, naming the entity.
        public var description: String { "the fixture model has no entity \(name)" }
    }
}

extension ModelFixtures {
    /// Owners with pets: "Owner(name, pets)" and "Pet(name, owner)", `pets` the to-many inverse
    /// of `owner` — the shape of the prefetching and relationship tests. Safe on any thread.
    public static func ownersAndPets() -> ManagedObjectModel {
        let owner = EntityDescription(name: "Owner")
        let pet = EntityDescription(name: "Pet")
        owner.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "pets", destination: pet, inverse: "owner", toMany: true),
        ]
        pet.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "owner", destination: owner, inverse: "pets"),
        ]
        return ManagedObjectModel(entities: [owner, pet])
    }
}
