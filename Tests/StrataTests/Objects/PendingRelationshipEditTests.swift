import Foundation
import Strata
import StrataTestSupport
import Testing

/// Edits of to-manys that are not loaded are recorded, not loaded: no I/O while editing, one
/// batch of queries at save, and the same results as if everything had been loaded.
@Suite("Pending relationship edits")
struct PendingRelationshipEditTests {
    /// Five students and five courses, saved, no links.
    func seeded(_ kind: TestStack.Kind = .sqlite) throws -> (TestStack, [ManagedObjectID], [ManagedObjectID]) {
        let stack = try TestStack(model: GraphFixtures.school(), kind: kind)
        let context = stack.newContext()
        let ids = try context.performAndWait {
            let students = (0..<5).map { index -> Student in
                let student = Student(context: context)
                student.name = "s\(index)"
                return student
            }
            let courses = (0..<5).map { index -> Course in
                let course = Course(context: context)
                course.title = "c\(index)"
                return course
            }
            try context.save()
            return (students.map(\.objectID), courses.map(\.objectID))
        }
        return (stack, ids.0, ids.1)
    }

    @Test("edits of cold objects run no query; the save loads what it needs in a few batched queries")
    func noQueriesWhileEditing() throws {
        let (stack, studentIDs, courseIDs) = try seeded()
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let students = studentIDs.map { context.object(with: $0) }
            let courses = courseIDs.map { context.object(with: $0) }
            let editing = recorder.statements {
                for (index, student) in students.enumerated() {
                    student.mutableSetValue(forKey: "courses").add(courses[index])
                    courses[(index + 1) % 5].mutableSetValue(forKey: "students").add(student)
                }
            }
            #expect(editing.isEmpty, "\(editing)")
            #expect(students.allSatisfy { $0.isFault && $0.isUpdated })
            let saving = try recorder.statements { try context.save() }
            #expect(!context.hasChanges)
            let reads = saving.filter { $0.uppercased().hasPrefix("SELECT") }
            // The faults' rows (one query per table), then each relationship's contents (one
            // query each).
            #expect(reads.count == 4, "\(reads.joined(separator: "\n"))")
        }
        let reader = stack.newContext()
        try reader.performAndWait {
            for (index, id) in studentIDs.enumerated() {
                let student = try #require(reader.object(with: id) as? Student)
                #expect(Set(student.courses.map(\.title)) == ["c\(index)", "c\((index + 1) % 5)"])
            }
        }
    }

    @Test("reading a relationship with pending edits shows them on top of the stored contents", arguments: TestStack.Kind.allCases)
    func readThrough(kind: TestStack.Kind) throws {
        let (stack, studentIDs, courseIDs) = try seeded(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let s0 = try #require(context.object(with: studentIDs[0]) as? Student)
            let c = courseIDs.compactMap { context.object(with: $0) as? Course }
            s0.courses = [c[0], c[1]]
            try context.save()
            context.reset()
        }
        let editor = stack.newContext()
        try editor.performAndWait {
            let s0 = try #require(editor.object(with: studentIDs[0]) as? Student)
            let c = courseIDs.compactMap { editor.object(with: $0) as? Course }
            c[2].$students.add(s0)  // s0.courses not loaded: recorded
            c[0].$students.remove(s0)  // likewise
            c[3].$students.add(s0)
            c[3].$students.remove(s0)  // the last edit wins
            #expect(Set(s0.courses.map(\.title)) == ["c1", "c2"])
            #expect(s0.mutableSetValue(forKey: "courses").count == 2)
            try editor.save()
        }
        let reader = stack.newContext()
        try reader.performAndWait {
            let s0 = try #require(reader.object(with: studentIDs[0]) as? Student)
            #expect(Set(s0.courses.map(\.title)) == ["c1", "c2"])
        }
    }

    @Test("edits in a child context reach the parent, then the store", arguments: TestStack.Kind.allCases)
    func childContext(kind: TestStack.Kind) throws {
        let (stack, studentIDs, courseIDs) = try seeded(kind)
        let parent = stack.newContext()
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        try child.performAndWait {
            let s0 = try #require(child.object(with: studentIDs[0]) as? Student)
            let s1 = try #require(child.object(with: studentIDs[1]) as? Student)
            let c0 = try #require(child.object(with: courseIDs[0]) as? Course)
            c0.$students.add(s0)  // recorded on both sides, nothing loaded
            s1.$courses.add(c0)
            try child.save()
        }
        try parent.performAndWait {
            let c0 = try #require(parent.object(with: courseIDs[0]) as? Course)
            #expect(Set(c0.students.map(\.name)) == ["s0", "s1"])
            #expect(parent.hasChanges)
            try parent.save()
        }
        try stack.reopen()
        let reader = stack.newContext()
        try reader.performAndWait {
            let request = FetchRequest<Course>(entityName: "Course")
            request.predicate = ObjectPredicate(format: "title == 'c0'")
            let c0 = try #require(try reader.fetch(request).first)
            #expect(Set(c0.students.map(\.name)) == ["s0", "s1"])
            #expect(c0.students.allSatisfy { $0.courses.map(\.title) == ["c0"] })
        }
    }

    @Test("recorded edits of an ordered relationship keep the order loaded edits would give", arguments: TestStack.Kind.allCases)
    func orderedRecordedEdits(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: GraphFixtures.music(), kind: kind)
        let context = stack.newContext()
        let (albumID, trackIDs) = try context.performAndWait {
            let album = Album(context: context)
            let tracks = (0..<4).map { index -> Song in
                let song = Song(context: context)
                song.title = "t\(index)"
                return song
            }
            album.tracks = tracks
            try context.save()
            return (album.objectID, tracks.map(\.objectID))
        }
        let editor = stack.newContext()
        try editor.performAndWait {
            let tracks = trackIDs.compactMap { editor.object(with: $0) as? Song }
            let album = try #require(editor.object(with: albumID) as? Album)
            tracks[0].album = nil  // album.tracks is not loaded: both edits are recorded
            tracks[0].album = album  // back, at the end
            tracks[2].album = nil
            #expect(album.tracks.map(\.title) == ["t1", "t3", "t0"])
            try editor.save()
        }
        try stack.reopen()
        let reader = stack.newContext()
        try reader.performAndWait {
            let request = FetchRequest<Album>(entityName: "Album")
            let album = try #require(try reader.fetch(request).first)
            #expect(album.tracks.map(\.title) == ["t1", "t3", "t0"])
        }
    }

    @Test("rollback and refresh drop pending edits")
    func rollbackDropsEdits() throws {
        let (stack, studentIDs, courseIDs) = try seeded()
        let context = stack.newContext()
        try context.performAndWait {
            let s0 = try #require(context.object(with: studentIDs[0]) as? Student)
            let c0 = try #require(context.object(with: courseIDs[0]) as? Course)
            c0.$students.add(s0)
            #expect(c0.isFault && c0.isUpdated)
            let c1 = try #require(context.object(with: courseIDs[1]) as? Course)
            c1.$students.add(s0)
            #expect(c1.committedValues(forKeys: ["title"])["title"] as? String == "c1")  // fires it
            context.rollback()
            #expect(c0.managedObjectContext === context)  // still registered, a plain fault again
            #expect(!c0.isUpdated)
            #expect(s0.courses.isEmpty)
            #expect(!context.hasChanges)
            c0.$students.add(s0)
            context.refresh(s0, mergeChanges: false)
            #expect(s0.courses.isEmpty)  // s0's recorded edit went with the refresh
            #expect(c0.students.count == 1)  // c0's is still there
            context.rollback()
            #expect(c0.students.isEmpty)
            #expect(!context.hasChanges)
        }
    }

    @Test("an object inserted and deleted before any save cannot stay in an inverse-less relationship", arguments: TestStack.Kind.allCases)
    func danglingReference(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: GraphFixtures.network(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let holder = Node(context: context)
            let tag = Node(context: context)
            holder.mutableSetValue(forKey: "tags").add(tag)
            context.delete(tag)
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.code == StrataError.Code.managedObjectValidation)
            #expect(error.key == "tags" && error.objectID == holder.objectID)
            #expect(error.message.contains("Dangling reference"))
            holder.mutableSetValue(forKey: "tags").remove(tag)
            try context.save()
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Node")) == 1)
        }
    }

    @Test("a saved object deleted elsewhere: its join rows go with it", arguments: TestStack.Kind.allCases)
    func deletedTagTarget(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: GraphFixtures.network(), kind: kind)
        let context = stack.newContext()
        let holderID = try context.performAndWait {
            let holder = Node(context: context)
            let tag = Node(context: context)
            tag.setValue(Int64(7), forKey: "label")
            holder.mutableSetValue(forKey: "tags").add(tag)
            try context.save()
            context.delete(tag)  // no inverse: holder.tags still lists it in this context
            try context.save()
            return holder.objectID
        }
        let reader = stack.newContext()
        reader.performAndWait {
            #expect(reader.object(with: holderID).objectIDs(forRelationshipNamed: "tags").isEmpty)
        }
    }
}
