import Foundation
import Strata

// MARK: Company ⇄ Department ⇄ Employee, with an abstract Person

/// A company: `departments` (deny while non-empty) and `customers` (no action).
public final class Company: ManagedObject {
    @Attribute("name") public var name: String
    @Relationship("departments") public var departments: Set<Department>
    @Relationship("customers") public var customers: Set<Customer>
}

/// A department: `company` (nullify), `employees` (cascade), fetched property `wellPaid`.
public final class Department: ManagedObject {
    @Attribute("name") public var name: String
    @Attribute("budget") public var budget: Double?
    @Relationship("company") public var company: Company?
    @Relationship("employees") public var employees: Set<Employee>
}

/// The abstract root of employees and customers: `friends` (its own inverse), `manager` ⇄
/// `reports` (self-referential, destination the super-entity).
public class Person: ManagedObject {
    @Attribute("name") public var name: String
    @Relationship("friends") public var friends: Set<Person>
    @Relationship("manager") public var manager: Person?
    @Relationship("reports") public var reports: Set<Person>
}

/// A person working in a department (`department`: nullify), fetched property `colleagues`.
public final class Employee: Person {
    @Attribute("salary") public var salary: Int64
    @Relationship("department") public var department: Department?
}

/// A person buying from a company (`company`: nullify).
public final class Customer: Person {
    @Attribute("tier") public var tier: Int16
    @Relationship("company") public var company: Company?
}

// MARK: Student ⇄ Course

/// A student taking courses (many-to-many).
public final class Student: ManagedObject {
    @Attribute("name") public var name: String
    @Relationship("courses") public var courses: Set<Course>
}

/// A course with its students (many-to-many).
public final class Course: ManagedObject {
    @Attribute("title") public var title: String
    @Relationship("students") public var students: Set<Student>
}

// MARK: Playlist → Song (ordered), Album → Song (ordered one-to-many)

/// A playlist: `songs` is an ordered many-to-many (a join table with positions).
public final class Playlist: ManagedObject {
    @Attribute("name") public var name: String
    @Relationship("songs") public var songs: [Song]
}

/// An album: `tracks` is an ordered one-to-many (positions on the song rows).
public final class Album: ManagedObject {
    @Attribute("title") public var title: String
    @Relationship("tracks") public var tracks: [Song]
}

/// A song, on any number of playlists and at most one album.
public final class Song: ManagedObject {
    @Attribute("title") public var title: String
    @Relationship("playlists") public var playlists: Set<Playlist>
    @Relationship("album") public var album: Album?
}

// MARK: Random graphs

/// A node of the random-graph model used by the seeded property test.
public class Node: ManagedObject {
    @Attribute("label") public var label: Int64
}

/// A sub-entity of `Node` (relationships whose destination is `Node` hold both kinds).
public final class Hub: Node {
    @Attribute("weight") public var weight: Int64
}

/// Object-graph models used across the tests. Each call builds a new, unfrozen model; call
/// from any thread (the objects of the models follow the usual queue rules).
public enum GraphFixtures {
    /// Company ⇄ Department ⇄ Employee, and an abstract Person with Employee and Customer.
    ///
    /// - `Company.departments` ⇄ `Department.company`: deny (while non-empty) / nullify
    /// - `Company.customers` ⇄ `Customer.company`: no action / nullify
    /// - `Department.employees` ⇄ `Employee.department`: cascade / nullify
    /// - `Person.friends`: many-to-many, its own inverse
    /// - `Person.manager` ⇄ `Person.reports`: to-one / to-many on the super-entity
    /// - fetched `Department.wellPaid` (employees of `$FETCH_SOURCE` with salary ≥ 100) and
    ///   `Employee.colleagues` (same department as `$FETCH_SOURCE.department`, not itself)
    public static func company() -> ManagedObjectModel {
        let company = EntityDescription(name: "Company", managedObjectClass: Company.self)
        let department = EntityDescription(name: "Department", managedObjectClass: Department.self)
        let person = EntityDescription(name: "Person", managedObjectClass: Person.self)
        let employee = EntityDescription(name: "Employee", managedObjectClass: Employee.self)
        let customer = EntityDescription(name: "Customer", managedObjectClass: Customer.self)
        person.isAbstract = true
        person.subentities = [employee, customer]

        company.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "departments", destinationEntityName: "Department", inverse: "company", toMany: true, deleteRule: .deny),
            RelationshipDescription(name: "customers", destinationEntityName: "Customer", inverse: "company", toMany: true, deleteRule: .noAction),
        ]
        let wellPaid = FetchRequest<ManagedObject>(entityName: "Employee")
        wellPaid.predicate = ObjectPredicate(format: "department == $FETCH_SOURCE AND salary >= 100")
        wellPaid.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
        department.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "budget", type: .double),
            RelationshipDescription(name: "company", destinationEntityName: "Company", inverse: "departments", deleteRule: .nullify),
            RelationshipDescription(name: "employees", destinationEntityName: "Employee", inverse: "department", toMany: true, deleteRule: .cascade),
            FetchedPropertyDescription(name: "wellPaid", fetchRequest: wellPaid),
        ]
        person.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "friends", destinationEntityName: "Person", inverse: "friends", toMany: true, deleteRule: .nullify),
            RelationshipDescription(name: "manager", destinationEntityName: "Person", inverse: "reports", deleteRule: .nullify),
            RelationshipDescription(name: "reports", destinationEntityName: "Person", inverse: "manager", toMany: true, deleteRule: .nullify),
        ]
        let colleagues = FetchRequest<ManagedObject>(entityName: "Employee")
        colleagues.predicate = ObjectPredicate(format: "department == $FETCH_SOURCE.department AND SELF != $FETCH_SOURCE")
        colleagues.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
        employee.properties = [
            AttributeDescription(name: "salary", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            RelationshipDescription(name: "department", destinationEntityName: "Department", inverse: "employees", deleteRule: .nullify),
            FetchedPropertyDescription(name: "colleagues", fetchRequest: colleagues),
        ]
        customer.properties = [
            AttributeDescription(name: "tier", type: .integer16, isOptional: false, defaultValue: Int16(0)),
            RelationshipDescription(name: "company", destinationEntityName: "Company", inverse: "customers", deleteRule: .nullify),
        ]
        return ManagedObjectModel(entities: [company, department, person])
    }

    /// Student ⇄ Course, a many-to-many (both sides nullify).
    public static func school() -> ManagedObjectModel {
        let student = EntityDescription(name: "Student", managedObjectClass: Student.self)
        let course = EntityDescription(name: "Course", managedObjectClass: Course.self)
        student.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "courses", destination: course, inverse: "students", toMany: true),
        ]
        course.properties = [
            AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "students", destination: student, inverse: "courses", toMany: true),
        ]
        return ManagedObjectModel(entities: [student, course])
    }

    /// Playlist → Song ordered many-to-many (`Song.playlists` the unordered inverse) and
    /// Album → Song ordered one-to-many (`Song.album` the inverse).
    public static func music() -> ManagedObjectModel {
        let playlist = EntityDescription(name: "Playlist", managedObjectClass: Playlist.self)
        let album = EntityDescription(name: "Album", managedObjectClass: Album.self)
        let song = EntityDescription(name: "Song", managedObjectClass: Song.self)
        playlist.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "songs", destination: song, inverse: "playlists", toMany: true, isOrdered: true),
        ]
        album.properties = [
            AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "tracks", destination: song, inverse: "album", toMany: true, isOrdered: true, deleteRule: .cascade),
        ]
        song.properties = [
            AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "playlists", destination: playlist, inverse: "songs", toMany: true),
            RelationshipDescription(name: "album", destination: album, inverse: "tracks"),
        ]
        return ManagedObjectModel(entities: [playlist, album, song])
    }

    /// The relationships of the random-graph model, with their inverses (nil: no inverse).
    public static let networkRelationships: [(name: String, inverse: String?)] = [
        ("parent", "children"), ("children", "parent"), ("partner", "partner"),
        ("links", "backlinks"), ("backlinks", "links"), ("peers", "peers"),
        ("sequence", "inSequences"), ("inSequences", "sequence"), ("tags", nil),
        ("owner", "owned"), ("owned", "owner"),
    ]

    /// The random-graph model: `Node(label)` and its sub-entity `Hub(weight)`, with every kind
    /// of relationship, all with destination `Node`:
    ///
    /// - `parent` ⇄ `children`: ordered one-to-many (foreign key + position column)
    /// - `partner`: one-to-one, its own inverse
    /// - `links` ⇄ `backlinks`: many-to-many (join table)
    /// - `peers`: many-to-many, its own inverse
    /// - `sequence` ⇄ `inSequences`: ordered many-to-many (join table with positions)
    /// - `tags`: to-many without an inverse (join table)
    /// - `owner` ⇄ `owned`: one-to-many whose to-many side cascades
    ///
    /// Every other rule is nullify.
    public static func network() -> ManagedObjectModel {
        let node = EntityDescription(name: "Node", managedObjectClass: Node.self)
        let hub = EntityDescription(name: "Hub", managedObjectClass: Hub.self)
        node.subentities = [hub]
        func relationship(_ name: String, _ inverse: String?, toMany: Bool, ordered: Bool = false, rule: RelationshipDescription.DeleteRule = .nullify) -> RelationshipDescription {
            RelationshipDescription(name: name, destination: node, inverse: inverse, toMany: toMany, isOrdered: ordered, deleteRule: rule)
        }
        node.properties = [
            AttributeDescription(name: "label", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            relationship("parent", "children", toMany: false),
            relationship("children", "parent", toMany: true, ordered: true),
            relationship("partner", "partner", toMany: false),
            relationship("links", "backlinks", toMany: true),
            relationship("backlinks", "links", toMany: true),
            relationship("peers", "peers", toMany: true),
            relationship("sequence", "inSequences", toMany: true, ordered: true),
            relationship("inSequences", "sequence", toMany: true),
            relationship("tags", nil, toMany: true),
            relationship("owner", "owned", toMany: false),
            relationship("owned", "owner", toMany: true, rule: .cascade),
        ]
        hub.properties = [
            AttributeDescription(name: "weight", type: .integer64, isOptional: false, defaultValue: Int64(0))
        ]
        return ManagedObjectModel(entities: [node])
    }
}
