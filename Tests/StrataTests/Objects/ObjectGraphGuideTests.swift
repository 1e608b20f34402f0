import Foundation
import Strata
import StrataTestSupport
import Testing

/// The examples of docs/object-graph.md, as written there (inside `Guide` so their class names
/// do not clash with the fixtures), run and checked.
@Suite("Object graph guide")
struct ObjectGraphGuideTests {
    @Test("the guide's examples run as written", arguments: TestStack.Kind.allCases)
    func guide(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Guide.makeModel(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait { try Guide.walkthrough(context) }
    }

    @Test("the guide's transient relationship snippet", arguments: TestStack.Kind.allCases)
    func transientSnippet(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Guide.boardModel(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let board = Guide.Board(context: context)
            let card = Guide.Card(context: context)
            card.title = "Write the docs"
            board.cards = [card]

            board.selection = card  // card.selectedOn now holds board
            #expect(card.selectedOn == [board])
            try context.save()  // writes no column, no join table for them
            #expect(board.selection == card)  // still in memory after the save

            context.refresh(board, mergeChanges: false)
            #expect(board.selection == nil)  // released, as transient attributes are
            #expect(board.cards == [card])
        }
        let other = stack.newContext()
        try other.performAndWait {
            let board = try #require(try other.fetch(Guide.Board.fetchRequest()).first)
            #expect(board.selection == nil && board.cards.count == 1)
        }
    }

    @Test("the guide's inheritance and validation snippets build valid models")
    func snippets() throws {
        try Guide.inheritanceModel().checkModel()
        let stack = try TestStack(model: Guide.accountModel())
        let context = stack.newContext()
        try context.performAndWait {
            let account = Guide.Account(context: context)
            account.username = "ann"
            try context.save()
            let short = try #require(throws: StrataError.self) { try account.validateValue("b", forKey: "username") }
            #expect(short.code == 1670)
            account.username = "root"
            #expect(throws: StrataError.self) { try context.save() }
            account.username = "ann"
            account.age = 12
            account.level = 7
            let minor = try #require(throws: StrataError.self) { try context.save() }
            #expect(minor.message == "minors stay below level 6")
        }
    }
}

enum Guide {
    final class Company: ManagedObject {
        @Attribute("name") var name: String
        @Relationship("departments") var departments: Set<Department>
    }

    final class Department: ManagedObject {
        @Attribute("name") var name: String
        @Relationship("company") var company: Company?
        @Relationship("employees") var employees: Set<Employee>
    }

    final class Employee: ManagedObject {
        @Attribute("name") var name: String
        @Attribute("salary") var salary: Int64
        @Relationship("department") var department: Department?
    }

    final class Playlist: ManagedObject {
        @Attribute("name") var name: String
        @Relationship("songs") var songs: [Song]  // ordered
    }

    final class Song: ManagedObject {
        @Attribute("title") var title: String
        @Relationship("playlists") var playlists: Set<Playlist>
    }

    static func makeModel() -> ManagedObjectModel {
        let company = EntityDescription(name: "Company", managedObjectClass: Company.self)
        let department = EntityDescription(name: "Department", managedObjectClass: Department.self)
        let employee = EntityDescription(name: "Employee", managedObjectClass: Employee.self)
        let playlist = EntityDescription(name: "Playlist", managedObjectClass: Playlist.self)
        let song = EntityDescription(name: "Song", managedObjectClass: Song.self)
        company.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(
                name: "departments", destination: department, inverse: "company",
                toMany: true, deleteRule: .deny),
        ]
        department.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "company", destination: company, inverse: "departments"),
            RelationshipDescription(
                name: "employees", destination: employee, inverse: "department",
                toMany: true, deleteRule: .cascade),
        ]
        employee.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "salary", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            RelationshipDescription(name: "department", destination: department, inverse: "employees"),
        ]
        playlist.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(
                name: "songs", destination: song, inverse: "playlists",
                toMany: true, isOrdered: true),
        ]
        song.properties = [
            AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "playlists", destination: playlist, inverse: "songs", toMany: true),
        ]
        // From "Fetched properties".
        let colleagues = FetchRequest<ManagedObject>(entityName: "Employee")
        colleagues.predicate = ObjectPredicate(format: "department == $FETCH_SOURCE.department AND SELF != $FETCH_SOURCE")
        colleagues.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
        employee.properties.append(FetchedPropertyDescription(name: "colleagues", fetchRequest: colleagues))
        return ManagedObjectModel(entities: [company, department, employee, playlist, song])
    }

    static func walkthrough(_ context: ManagedObjectContext) throws {
        // "Editing: the other side follows"
        let sales = Department(context: context)
        let support = Department(context: context)
        let ann = Employee(context: context)

        ann.department = sales  // sales.employees == [ann]
        #expect(sales.employees == [ann])
        ann.department = support  // sales.employees == [], support.employees == [ann]
        #expect(sales.employees.isEmpty && support.employees == [ann])
        sales.employees = [ann]  // ann.department === sales, support.employees == []
        #expect(ann.department === sales && support.employees.isEmpty)
        ann.setValue(nil, forKey: "department")  // key-value coding does the same: sales.employees == []
        #expect(sales.employees.isEmpty)

        let rock = Playlist(context: context)
        let intro = Song(context: context)
        let anthem = Song(context: context)
        let encore = Song(context: context)

        let songs = rock.$songs  // MutableOrderedRelationshipSet<Song>
        songs.add(anthem)  // [anthem]; anthem.playlists == [rock]
        #expect(rock.songs == [anthem] && anthem.playlists == [rock])
        songs.insert(intro, at: 0)  // [intro, anthem]
        songs.add(encore)  // [intro, anthem, encore]
        #expect(rock.songs == [intro, anthem, encore])
        songs.moveObjects(at: IndexSet(integer: 2), to: 0)  // [encore, intro, anthem]
        #expect(rock.songs == [encore, intro, anthem])
        songs.removeObject(at: 1)  // [encore, anthem]; intro.playlists == []
        #expect(rock.songs == [encore, anthem] && intro.playlists.isEmpty)
        let first = songs[0]  // encore (an index out of range reads nil)
        #expect(first === encore && songs[5] == nil)

        let staff = sales.mutableSetValue(forKey: "employees")  // MutableRelationshipSet<ManagedObject>
        staff.add(ann)  // ann.department === sales
        #expect(ann.department === sales)
        print(staff.count, staff.contains(ann))  // 1 true
        #expect(staff.count == 1 && staff.contains(ann))
        for member in staff { print(member.value(forKey: "name") ?? "") }
        #expect(ann.$department == sales.objectID)

        // "Delete rules"
        let acme = Company(context: context)
        support.company = acme
        try context.save()

        context.delete(sales)  // cascade: ann, its employee, is deleted too
        #expect(ann.isDeleted)
        context.delete(acme)  // deny: acme.departments still holds support
        var denied: StrataError?
        do {
            try context.save()
        } catch let error as StrataError {
            denied = error
        }
        #expect(denied?.code == 1600 && denied?.code == StrataError.Code.validationRelationshipDeniedDelete)
        #expect(denied?.entityName == "Company" && denied?.key == "departments" && denied?.objectID == acme.objectID)
        context.delete(support)  // deny is checked at save: with support deleted too, it passes
        try context.save()

        // "Fetched properties"
        let team = Department(context: context)
        let bo = Employee(context: context)
        bo.name = "Bo"
        let cy = Employee(context: context)
        cy.name = "Cy"
        team.employees = [bo, cy]
        try context.save()
        let others = bo.value(forKey: "colleagues") as? [ManagedObject] ?? []
        #expect(others == [cy])
    }

    // "Entity inheritance"
    static func inheritanceModel() -> ManagedObjectModel {
        let person = EntityDescription(name: "Person")  // abstract: only sub-entities exist
        person.isAbstract = true
        person.properties = [AttributeDescription(name: "name", type: .string)]
        let employee = EntityDescription(name: "Employee")
        employee.properties = [AttributeDescription(name: "salary", type: .integer64)]
        let customer = EntityDescription(name: "Customer")
        customer.properties = [AttributeDescription(name: "tier", type: .integer16)]
        person.subentities = [employee, customer]
        let model = ManagedObjectModel(entities: [person])  // sub-entities come along
        return model
    }

    // "Transient relationships"
    final class Board: ManagedObject {
        @Relationship("cards") var cards: Set<Card>
        @Relationship("selection") var selection: Card?  // transient
    }

    final class Card: ManagedObject {
        @Attribute("title") var title: String
        @Relationship("board") var board: Board?
        @Relationship("selectedOn") var selectedOn: Set<Board>  // transient
    }

    static func boardModel() -> ManagedObjectModel {
        let board = EntityDescription(name: "Board", managedObjectClass: Board.self)
        let card = EntityDescription(name: "Card", managedObjectClass: Card.self)
        let selection = RelationshipDescription(name: "selection", destination: card, inverse: "selectedOn")
        selection.isTransient = true
        let selectedOn = RelationshipDescription(name: "selectedOn", destination: board, inverse: "selection", toMany: true)
        selectedOn.isTransient = true  // both sides, or neither
        board.properties = [RelationshipDescription(name: "cards", destination: card, inverse: "board", toMany: true), selection]
        card.properties = [
            AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "board", destination: board, inverse: "cards"),
            selectedOn,
        ]
        return ManagedObjectModel(entities: [board, card])
    }

    // "Validation"
    final class Account: ManagedObject {
        @Attribute("username") var username: String
        @Attribute("age") var age: Int16?
        @Attribute("level") var level: Int16

        // Called for every attribute and to-one of an inserted object and every changed one of an
        // updated object; call it yourself to check a value before setting it.
        override func validateValue(_ value: Any?, forKey key: String) throws {
            if key == "username", value as? String == "root" {
                throw StrataError(
                    code: StrataError.Code.managedObjectValidation, message: "'root' is reserved",
                    entityName: entity.name, key: key, objectID: objectID)
            }
            try super.validateValue(value, forKey: key)
        }

        // Rules that involve several properties.
        override func validateForUpdate() throws {
            try super.validateForUpdate()
            if let age, age < 18, level > 5 {
                throw StrataError(
                    code: StrataError.Code.managedObjectValidation, message: "minors stay below level 6",
                    entityName: entity.name, key: "level", objectID: objectID)
            }
        }
    }

    static func accountModel() -> ManagedObjectModel {
        let account = EntityDescription(name: "Account", managedObjectClass: Account.self)
        let team = EntityDescription(name: "Team")
        let username = AttributeDescription(name: "username", type: .string, isOptional: false, defaultValue: "")
        username.minLength = 3
        let code = AttributeDescription(name: "code", type: .string)
        code.setValidationPredicates(
            [ObjectPredicate(format: "SELF MATCHES 'AC-[0-9]+'"), ObjectPredicate(format: "SELF != 'AC-000'")],
            withValidationWarnings: ["code must look like AC-123", "AC-000 is not a code"])
        let email = AttributeDescription(name: "email", type: .string)
        email.validationRules = [ValidationRule("email needs an @") { ($0 as? String)?.contains("@") ?? true }]
        let members = RelationshipDescription(
            name: "members", destinationEntityName: "Account", inverse: "team",
            toMany: true, minCount: 2, maxCount: 3)
        members.setValidationPredicates(
            [ObjectPredicate(format: "NOT (ANY SELF.username == 'banned')")],
            withValidationWarnings: ["banned accounts cannot join a team"])
        account.properties = [
            username, code, email,
            AttributeDescription(name: "age", type: .integer16),
            AttributeDescription(name: "level", type: .integer16, isOptional: false, defaultValue: Int16(0)),
            RelationshipDescription(name: "team", destination: team, inverse: "members"),
        ]
        team.properties = [members]
        return ManagedObjectModel(entities: [account, team])
    }
}
