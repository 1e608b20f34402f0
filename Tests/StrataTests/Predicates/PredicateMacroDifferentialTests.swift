import Foundation
import Strata
import StrataTestSupport
import Testing

/// A `#Predicate` tree built at run time: since `#Predicate` is a compile-time macro, the
/// generator composes the same `PredicateExpressions` nodes the macro writes (comparisons, string
/// tests, nil checks, optional chaining, arithmetic, `??`, IN, BETWEEN) from a fixed table of
/// atoms, each paired with its format string.
private typealias MemberVariable = PredicateExpressions.Variable<MacroMember>
private typealias BoolExpression = any StandardPredicateExpression<Bool>

/// One atom: a format string and the same condition as a `PredicateExpressions` tree.
private struct MacroAtom {
    let format: String
    let build: (MemberVariable) -> BoolExpression
}

private func key<T>(_ variable: MemberVariable, _ keyPath: any KeyPath<MacroMember, T> & Sendable) -> PredicateExpressions.KeyPath<MemberVariable, T> {
    PredicateExpressions.KeyPath(root: variable, keyPath: keyPath)
}

private func constant<T: Codable & Sendable>(_ value: T) -> PredicateExpressions.Value<T> { PredicateExpressions.Value(value) }

private func conjunction<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ lhs: L, _ rhs: R) -> BoolExpression {
    PredicateExpressions.Conjunction(lhs: lhs, rhs: rhs)
}

private func disjunction<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ lhs: L, _ rhs: R) -> BoolExpression {
    PredicateExpressions.Disjunction(lhs: lhs, rhs: rhs)
}

private func negation<W: StandardPredicateExpression<Bool>>(_ wrapped: W) -> BoolExpression {
    PredicateExpressions.Negation(wrapped)
}

/// The atoms: each `#Predicate` form next to the format string Core Data's conversion gives.
private func macroAtoms() -> [MacroAtom] {
    typealias Op = PredicateExpressions.ComparisonOperator
    var atoms: [MacroAtom] = []
    let ops: [(Op, String)] = [(.lessThan, "<"), (.lessThanOrEqual, "<="), (.greaterThan, ">"), (.greaterThanOrEqual, ">=")]
    for (op, symbol) in ops {
        for value in [Int64(-1), 17, 30, 60] {
            atoms.append(MacroAtom(format: "age \(symbol) \(value)") { PredicateExpressions.Comparison(lhs: key($0, \.age), rhs: constant(value), op: op) })
        }
        // `(score ?? fallback) op 1.5`, with a fallback on the false side, is `score op 1.5`.
        let fallback = op == .lessThan || op == .lessThanOrEqual ? 100.0 : -100.0
        atoms.append(
            MacroAtom(format: "score \(symbol) 1.5") {
                PredicateExpressions.Comparison(lhs: PredicateExpressions.NilCoalesce(lhs: key($0, \.score), rhs: constant(fallback)), rhs: constant(1.5), op: op)
            })
        atoms.append(MacroAtom(format: "name \(symbol) 'B'") { PredicateExpressions.Comparison(lhs: key($0, \.name), rhs: constant("B"), op: op) })
    }
    atoms.append(MacroAtom(format: "age == 42") { PredicateExpressions.Equal(lhs: key($0, \.age), rhs: constant(Int64(42))) })
    atoms.append(MacroAtom(format: "age != 42") { PredicateExpressions.NotEqual(lhs: key($0, \.age), rhs: constant(Int64(42))) })
    for name in ["Ann", "anna", "Émile", ""] {
        atoms.append(MacroAtom(format: "name == '\(name)'") { PredicateExpressions.Equal(lhs: key($0, \.name), rhs: constant(name)) })
    }
    for prefix in ["A", "an", "É", "Bo"] {
        atoms.append(MacroAtom(format: "name BEGINSWITH '\(prefix)'") { PredicateExpressions.SequenceStartsWith(base: key($0, \.name), prefix: constant(prefix)) })
    }
    for part in ["nn", "é", "ob", "e"] {
        atoms.append(MacroAtom(format: "name CONTAINS '\(part)'") { PredicateExpressions.CollectionContainsCollection(base: key($0, \.name), other: constant(part)) })
    }
    atoms.append(MacroAtom(format: "nick == nil") { PredicateExpressions.Equal(lhs: key($0, \.nick), rhs: PredicateExpressions.NilLiteral<String>()) })
    atoms.append(MacroAtom(format: "nick != nil") { PredicateExpressions.NotEqual(lhs: key($0, \.nick), rhs: PredicateExpressions.NilLiteral<String>()) })
    atoms.append(MacroAtom(format: "nick == 'ace'") { PredicateExpressions.Equal(lhs: key($0, \.nick), rhs: constant(String?("ace"))) })
    atoms.append(MacroAtom(format: "score == nil") { PredicateExpressions.Equal(lhs: key($0, \.score), rhs: PredicateExpressions.NilLiteral<Double>()) })
    atoms.append(MacroAtom(format: "active == YES") { key($0, \.active) })
    atoms.append(MacroAtom(format: "active == NO") { PredicateExpressions.Equal(lhs: key($0, \.active), rhs: constant(false)) })
    for team in ["Red", "Blue"] {
        atoms.append(
            MacroAtom(format: "team.name == '\(team)'") {
                PredicateExpressions.Equal(
                    lhs: PredicateExpressions.OptionalFlatMap(key($0, \.team)) { PredicateExpressions.KeyPath(root: $0, keyPath: \MacroTeam.name) },
                    rhs: constant(String?(team)))
            })
    }
    atoms.append(MacroAtom(format: "team == nil") { PredicateExpressions.Equal(lhs: key($0, \.team), rhs: PredicateExpressions.NilLiteral<MacroTeam>()) })
    atoms.append(
        MacroAtom(format: "team.city == 'Oslo'") {
            PredicateExpressions.Equal(
                lhs: PredicateExpressions.OptionalFlatMap(key($0, \.team)) { PredicateExpressions.KeyPath(root: $0, keyPath: \MacroTeam.city) },
                rhs: constant(String?("Oslo")))
        })
    atoms.append(MacroAtom(format: "name IN {'Ann', 'Bob', 'Zoë'}") { PredicateExpressions.SequenceContains(sequence: constant(["Ann", "Bob", "Zoë"]), element: key($0, \.name)) })
    atoms.append(
        MacroAtom(format: "age BETWEEN {10, 40}") {
            PredicateExpressions.RangeExpressionContains(range: PredicateExpressions.ClosedRange(lower: constant(Int64(10)), upper: constant(Int64(40))), element: key($0, \.age))
        })
    atoms.append(
        MacroAtom(format: "age * 2 - 3 > 50") {
            let doubled = PredicateExpressions.Arithmetic(lhs: key($0, \.age), rhs: constant(Int64(2)), op: .multiply)
            return PredicateExpressions.Comparison(lhs: PredicateExpressions.Arithmetic(lhs: doubled, rhs: constant(Int64(3)), op: .subtract), rhs: constant(Int64(50)), op: .greaterThan)
        })
    atoms.append(
        MacroAtom(format: "age + 10 < 20") {
            PredicateExpressions.Comparison(lhs: PredicateExpressions.Arithmetic(lhs: key($0, \.age), rhs: constant(Int64(10)), op: .add), rhs: constant(Int64(20)), op: .lessThan)
        })
    atoms.append(
        MacroAtom(format: "length:(name) > 3") {
            PredicateExpressions.Comparison(lhs: PredicateExpressions.KeyPath(root: key($0, \.name), keyPath: \String.count), rhs: constant(3), op: .greaterThan)
        })
    return atoms
}

/// A random combination of atoms.
private indirect enum MacroTree {
    case atom(Int)
    case and(MacroTree, MacroTree)
    case or(MacroTree, MacroTree)
    case not(MacroTree)

    static func random(depth: Int, atoms: Int, using random: inout SeededRandom) -> MacroTree {
        if depth == 0 || random.chance(0.3) { return .atom(random.below(atoms)) }
        switch random.below(5) {
        case 0, 1: return .and(.random(depth: depth - 1, atoms: atoms, using: &random), .random(depth: depth - 1, atoms: atoms, using: &random))
        case 2, 3: return .or(.random(depth: depth - 1, atoms: atoms, using: &random), .random(depth: depth - 1, atoms: atoms, using: &random))
        default: return .not(.random(depth: depth - 1, atoms: atoms, using: &random))
        }
    }

    func format(_ atoms: [MacroAtom]) -> String {
        switch self {
        case .atom(let index): return "(\(atoms[index].format))"
        case .and(let a, let b): return "(\(a.format(atoms)) AND \(b.format(atoms)))"
        case .or(let a, let b): return "(\(a.format(atoms)) OR \(b.format(atoms)))"
        case .not(let a): return "(NOT \(a.format(atoms)))"
        }
    }

    func build(_ atoms: [MacroAtom], _ variable: MemberVariable) -> BoolExpression {
        switch self {
        case .atom(let index): return atoms[index].build(variable)
        case .and(let a, let b): return conjunction(a.build(atoms, variable), b.build(atoms, variable))
        case .or(let a, let b): return disjunction(a.build(atoms, variable), b.build(atoms, variable))
        case .not(let a): return negation(a.build(atoms, variable))
        }
    }
}

/// The differential test of issue #17 item 2: a few hundred generated format strings, each paired
/// with its `#Predicate` twin, select the same rows through SQL (SQLite store), in an in-memory
/// store, and over unsaved objects (the in-memory evaluator on pending changes), and the rows
/// Foundation's own `Predicate.evaluate` selects among the objects.
@Suite("#Predicate differential")
struct PredicateMacroDifferentialTests {
    // Core Data: a Predicate converted with NSPredicate(_:) selects what the equivalent
    // NSPredicate(format:) selects, in a SQLite fetch and in memory alike; SwiftData evaluates a
    // #Predicate with the same meaning as the Swift closure it spells.
    @Test("generated #Predicate/format pairs select the same rows on every engine")
    func differential() throws {
        let seed = ProcessInfo.processInfo.environment["STRATA_MACRO_DIFF_SEED"].flatMap(UInt64.init) ?? 17
        let count = ProcessInfo.processInfo.environment["STRATA_MACRO_DIFF_COUNT"].flatMap(Int.init) ?? 300
        let atoms = macroAtoms()
        let sqlite = try TestStack(model: PredicateMacroFixture.model(), kind: .sqlite)
        let memory = try TestStack(model: PredicateMacroFixture.model(), kind: .inMemory)
        let saved = [sqlite.newContext(), memory.newContext()]
        for context in saved {
            try context.performAndWait {
                PredicateMacroFixture.populate(context, count: 200, seed: seed)
                try context.save()
            }
        }
        // Unsaved objects over the saved ones: a fetch evaluates them in memory.
        let pending = sqlite.newContext()
        try pending.performAndWait {
            PredicateMacroFixture.populate(pending, count: 80, firstSerial: 1000, seed: seed &+ 1)
            let first = try pending.fetch(MacroMember.fetchRequest()).filter { $0.serial < 30 }
            for member in first { member.age += 7 }
        }
        var random = SeededRandom(seed: seed)
        var nonTrivial = 0
        for index in 0..<count {
            let tree = MacroTree.random(depth: 3, atoms: atoms.count, using: &random)
            let format = tree.format(atoms)
            let predicate = Predicate<MacroMember> { tree.build(atoms, $0) }
            let plain = try ObjectPredicate(validatingFormat: format)
            let translated = try ObjectPredicate(predicate)
            var results: [String: [Int64]] = [:]
            for (name, context) in [("SQLite", saved[0]), ("in-memory", saved[1]), ("pending", pending)] {
                for (label, objectPredicate) in [("format", plain), ("#Predicate", translated)] {
                    let request = MacroMember.fetchRequest()
                    request.predicate = objectPredicate
                    request.sortDescriptors = [try ObjectSortDescriptor(\MacroMember.serial)]
                    results["\(name) \(label)"] = try context.performAndWait { try context.fetch(request).map(\.serial) }
                }
            }
            results["pending Predicate.evaluate"] = try pending.performAndWait {
                let all = try pending.fetch(MacroMember.fetchRequest())
                return try all.filter { try predicate.evaluate($0) }.map(\.serial).sorted()
            }
            let reference = results["SQLite format"] ?? []
            for (label, rows) in results where !label.hasPrefix("pending") {
                #expect(rows == reference, "#\(index) seed \(seed): \(label) differs for \(format)")
            }
            let pendingReference = results["pending format"] ?? []
            for (label, rows) in results where label.hasPrefix("pending") {
                #expect(rows == pendingReference, "#\(index) seed \(seed): \(label) differs for \(format)")
            }
            if !reference.isEmpty && reference.count < 200 { nonTrivial += 1 }
        }
        #expect(nonTrivial > count / 2, "only \(nonTrivial) of \(count) predicates select some but not all rows")
    }
}
