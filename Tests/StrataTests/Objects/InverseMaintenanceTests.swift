import Foundation
import Strata
import StrataTestSupport
import Testing

/// Setting one side of a relationship updates the other side at once, for every kind of edit
/// and every kind of relationship, and both sides survive save → reopen.
@Suite("Inverse maintenance")
struct InverseMaintenanceTests {
    /// Saves, reopens the store and runs `check` in a fresh context.
    func afterReopen(_ stack: TestStack, _ check: (ManagedObjectContext) throws -> Void) throws {
        try stack.reopen()
        let context = stack.newContext()
        try context.performAndWait { try check(context) }
    }

    func fetchOne<T: ManagedObject>(_ type: T.Type, _ entity: String, _ format: String, _ args: Any..., in context: ManagedObjectContext) throws -> T {
        let request = FetchRequest<T>(entityName: entity)
        request.predicate = ObjectPredicate(format: format, argumentArray: args)
        return try #require(try context.fetch(request).first)
    }

    @Test("to-one set, changed and cleared moves the object between to-many sides", arguments: TestStack.Kind.allCases)
    func oneToMany(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: GraphFixtures.company(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let sales = Department(context: context)
            sales.name = "Sales"
            let ops = Department(context: context)
            ops.name = "Ops"
            let ann = Employee(context: context)
            ann.name = "Ann"
            let bo = Employee(context: context)
            bo.name = "Bo"

            ann.department = sales  // typed to-one setter
            #expect(sales.employees == [ann])
            bo.setValue(sales, forKey: "department")  // KVC to-one setter
            #expect(sales.employees == [ann, bo])
            ann.department = ops  // change: leaves the old side
            #expect(sales.employees == [bo])
            #expect(ops.employees == [ann])
            bo.department = nil  // clear
            #expect(sales.employees.isEmpty)
            #expect(bo.department == nil)
            try context.save()

            // Edits from the to-many side.
            sales.$employees.add(bo)  // proxy add
            #expect(bo.department == sales)
            sales.mutableSetValue(forKey: "employees").add(ann)  // steals ann from ops
            #expect(ann.department == sales)
            #expect(ops.employees.isEmpty)
            sales.$employees.remove(bo)
            #expect(bo.department == nil)
            ops.employees = [bo, ann]  // typed whole-set replace
            #expect(sales.employees.isEmpty)
            #expect(ann.department == ops && bo.department == ops)
            ops.setValue(Set([bo]), forKey: "employees")  // KVC replace drops ann
            #expect(ann.department == nil)
            try context.save()
        }
        try afterReopen(stack) { context in
            let ops = try fetchOne(Department.self, "Department", "name == %@", "Ops", in: context)
            let sales = try fetchOne(Department.self, "Department", "name == %@", "Sales", in: context)
            let bo = try fetchOne(Employee.self, "Employee", "name == %@", "Bo", in: context)
            let ann = try fetchOne(Employee.self, "Employee", "name == %@", "Ann", in: context)
            #expect(ops.employees == [bo])
            #expect(sales.employees.isEmpty)
            #expect(bo.department == ops)
            #expect(ann.department == nil)
        }
    }

    @Test("many-to-many: Student ⇄ Course, every edit on either side", arguments: TestStack.Kind.allCases)
    func manyToMany(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: GraphFixtures.school(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let ann = Student(context: context)
            ann.name = "Ann"
            let bo = Student(context: context)
            bo.name = "Bo"
            let math = Course(context: context)
            math.title = "Math"
            let art = Course(context: context)
            art.title = "Art"

            ann.courses = [math, art]
            #expect(math.students == [ann] && art.students == [ann])
            math.$students.add(bo)
            #expect(bo.courses == [math])
            bo.mutableSetValue(forKey: "courses").addObjects(from: [art])
            #expect(art.students == [ann, bo])
            try context.save()

            ann.$courses.remove(math)
            #expect(math.students == [bo])
            art.$students.removeAllObjects()
            #expect(ann.courses.isEmpty && bo.courses == [math])
            bo.setValue(nil, forKey: "courses")
            #expect(math.students.isEmpty)
            ann.courses = [art]
            bo.courses = [art, math]
            try context.save()
        }
        try afterReopen(stack) { context in
            let ann = try fetchOne(Student.self, "Student", "name == 'Ann'", in: context)
            let bo = try fetchOne(Student.self, "Student", "name == 'Bo'", in: context)
            let math = try fetchOne(Course.self, "Course", "title == 'Math'", in: context)
            let art = try fetchOne(Course.self, "Course", "title == 'Art'", in: context)
            #expect(ann.courses == [art])
            #expect(bo.courses == [art, math])
            #expect(art.students == [ann, bo])
            #expect(math.students == [bo])
        }
    }

    @Test("a many-to-many that is its own inverse (Person.friends)", arguments: TestStack.Kind.allCases)
    func selfInverse(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: GraphFixtures.company(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let ann = Employee(context: context)
            ann.name = "Ann"
            let bo = Customer(context: context)
            bo.name = "Bo"
            let cy = Employee(context: context)
            cy.name = "Cy"
            ann.friends = [bo, cy]
            #expect(bo.friends == [ann])
            #expect(cy.friends == [ann])
            cy.$friends.add(bo)
            #expect(bo.friends == [ann, cy])
            try context.save()
            bo.$friends.remove(ann)
            #expect(ann.friends == [cy])
            try context.save()
        }
        try afterReopen(stack) { context in
            let ann = try fetchOne(Person.self, "Person", "name == 'Ann'", in: context)
            let bo = try fetchOne(Person.self, "Person", "name == 'Bo'", in: context)
            let cy = try fetchOne(Person.self, "Person", "name == 'Cy'", in: context)
            #expect(bo is Customer && ann is Employee)
            #expect(ann.friends == [cy])
            #expect(bo.friends == [cy])
            #expect(cy.friends == [ann, bo])
        }
    }

    @Test("self-referential to-one ⇄ to-many on a super-entity (manager ⇄ reports)", arguments: TestStack.Kind.allCases)
    func managerReports(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: GraphFixtures.company(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let boss = Employee(context: context)
            boss.name = "Boss"
            let ann = Employee(context: context)
            ann.name = "Ann"
            let client = Customer(context: context)
            client.name = "Client"
            ann.manager = boss
            client.manager = boss  // a Customer reports to an Employee: destination is Person
            #expect(boss.reports == [ann, client])
            boss.manager = boss  // its own manager
            #expect(boss.reports == [ann, client, boss])
            try context.save()
            ann.manager = client
            #expect(boss.reports == [client, boss])
            #expect(client.reports == [ann])
            try context.save()
        }
        try afterReopen(stack) { context in
            let boss = try fetchOne(Employee.self, "Employee", "name == 'Boss'", in: context)
            let ann = try fetchOne(Employee.self, "Employee", "name == 'Ann'", in: context)
            let client = try fetchOne(Customer.self, "Customer", "name == 'Client'", in: context)
            #expect(ann.manager === client)
            #expect(client.manager === boss)
            #expect(boss.manager === boss)
            #expect(boss.reports == [client, boss])
            #expect(client.reports == [ann])
        }
    }

    @Test("ordered many-to-many: insert, move, remove by index; order survives reopen", arguments: TestStack.Kind.allCases)
    func orderedManyToMany(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: GraphFixtures.music(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let mix = Playlist(context: context)
            mix.name = "Mix"
            let songs = (0..<5).map { index -> Song in
                let song = Song(context: context)
                song.title = "s\(index)"
                return song
            }
            mix.songs = [songs[0], songs[1], songs[2]]
            #expect(songs[1].playlists == [mix])
            let proxy = mix.$songs
            proxy.insert(songs[3], at: 0)
            #expect(mix.songs.map(\.title) == ["s3", "s0", "s1", "s2"])
            #expect(songs[3].playlists == [mix])
            proxy.insert(songs[0], at: 3)  // already there: nothing changes
            #expect(mix.songs.map(\.title) == ["s3", "s0", "s1", "s2"])
            proxy.moveObjects(at: IndexSet([0, 2]), to: 2)
            #expect(mix.songs.map(\.title) == ["s0", "s2", "s3", "s1"])
            proxy.removeObject(at: 1)
            #expect(songs[2].playlists.isEmpty)
            #expect(proxy.count == 3 && proxy[0] === songs[0] && proxy[3] == nil)
            try context.save()
            // From the unordered side: the song goes at the end.
            songs[4].$playlists.add(mix)
            #expect(mix.songs.map(\.title) == ["s0", "s3", "s1", "s4"])
            var reordered = mix.songs
            reordered.swapAt(0, 3)
            mix.songs = reordered  // typed array assignment keeps the given order
            try context.save()
        }
        try afterReopen(stack) { context in
            let mix = try fetchOne(Playlist.self, "Playlist", "name == 'Mix'", in: context)
            #expect(mix.songs.map(\.title) == ["s4", "s3", "s1", "s0"])
            let s2 = try fetchOne(Song.self, "Song", "title == 's2'", in: context)
            #expect(s2.playlists.isEmpty)
            #expect(mix.mutableOrderedSetValue(forKey: "songs").index(of: s2) == nil)
        }
    }

    @Test("ordered one-to-many: positions, moves between owners, order survives reopen", arguments: TestStack.Kind.allCases)
    func orderedOneToMany(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: GraphFixtures.music(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let first = Album(context: context)
            first.title = "First"
            let second = Album(context: context)
            second.title = "Second"
            let songs = (0..<4).map { index -> Song in
                let song = Song(context: context)
                song.title = "t\(index)"
                return song
            }
            first.tracks = songs
            #expect(songs.allSatisfy { $0.album === first })
            try context.save()
            first.$tracks.moveObjects(at: IndexSet(integer: 3), to: 0)
            #expect(first.tracks.map(\.title) == ["t3", "t0", "t1", "t2"])
            songs[0].album = second  // leaves `first`, appended to `second`
            #expect(first.tracks.map(\.title) == ["t3", "t1", "t2"])
            second.$tracks.insert(songs[2], at: 0)
            #expect(second.tracks.map(\.title) == ["t2", "t0"])
            #expect(first.tracks.map(\.title) == ["t3", "t1"])
            try context.save()
        }
        try afterReopen(stack) { context in
            let first = try fetchOne(Album.self, "Album", "title == 'First'", in: context)
            let second = try fetchOne(Album.self, "Album", "title == 'Second'", in: context)
            #expect(first.tracks.map(\.title) == ["t3", "t1"])
            #expect(second.tracks.map(\.title) == ["t2", "t0"])
            #expect(second.tracks.allSatisfy { $0.album === second })
        }
    }

    @Test("setPrimitiveValue does not touch the inverse")
    func primitive() throws {
        let stack = try TestStack(model: GraphFixtures.school())
        let context = stack.newContext()
        context.performAndWait {
            let ann = Student(context: context)
            let math = Course(context: context)
            ann.setPrimitiveValue(Set([math]), forKey: "courses")
            #expect(ann.courses == [math])
            #expect(math.students.isEmpty)
        }
    }

    @Test("bad relationship values change nothing and are reported by save")
    func badValues() throws {
        let stack = try TestStack(model: GraphFixtures.company())
        let context = stack.newContext()
        let other = stack.newContext()
        try context.performAndWait {
            let sales = Department(context: context)
            let ann = Employee(context: context)
            let stranger = other.performAndWait { Employee(context: other) }
            ann.setValue("Sales", forKey: "department")  // not an object
            ann.setValue(ann, forKey: "department")  // wrong entity
            sales.mutableSetValue(forKey: "employees").add(stranger)  // another context
            sales.mutableOrderedSetValue(forKey: "employees").add(ann)  // not ordered: inert proxy
            sales.mutableSetValue(forKey: "name").add(ann)  // not a to-many
            #expect(ann.department == nil)
            #expect(sales.employees.isEmpty)
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.code == StrataError.Code.validationMultipleErrors)
            #expect(error.underlyingErrors.count == 5)
            #expect(error.underlyingErrors.contains { $0.code == StrataError.Code.managedObjectExternalRelationship && $0.key == "employees" })
            #expect(error.underlyingErrors.allSatisfy { $0.entityName != nil && $0.key != nil })
        }
    }

    @Test("objectIDs(forRelationshipNamed:) and to-one projections read IDs without creating objects")
    func objectIDs() throws {
        let stack = try TestStack(model: GraphFixtures.company())
        let context = stack.newContext()
        let (annID, salesID) = try context.performAndWait {
            let sales = Department(context: context)
            let ann = Employee(context: context)
            ann.department = sales
            try context.save()
            return (ann.objectID, sales.objectID)
        }
        let reader = stack.newContext()
        reader.performAndWait {
            let ann = reader.object(with: annID) as? Employee
            #expect(ann?.$department == salesID)
            #expect(reader.registeredObject(for: salesID) == nil)
            #expect(ann?.objectIDs(forRelationshipNamed: "department") == [salesID])
            let sales = reader.object(with: salesID)
            #expect(sales.objectIDs(forRelationshipNamed: "employees") == [annID])
        }
    }
}
