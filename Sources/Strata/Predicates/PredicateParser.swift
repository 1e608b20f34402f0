import Foundation

/// Parses Core Data's predicate format language into a ``PredicateNode`` tree, consuming format
/// arguments (`%@`, `%K`, `%d`, …) as it goes.
///
/// Grammar, loosest binding first:
/// ```
/// predicate  := or
/// or         := and (("OR" | "||") and)*
/// and        := not (("AND" | "&&") not)*
/// not        := ("NOT" | "!") not | "(" predicate ")" | TRUEPREDICATE | FALSEPREDICATE | comparison
/// comparison := [ANY | SOME | ALL | NONE] expr operator ["[" options "]"] expr
/// expr       := term (("+" | "-") term)*
/// term       := power (("*" | "/") power)*
/// power      := unary ("**" unary)*
/// unary      := "-" unary | postfix
/// postfix    := primary ("." key | "[" index "]")*
/// primary    := literal | key | $var | %@ | %K | SELF | "{" list "}" | "(" expr ")"
///             | SUBQUERY(expr, $var, predicate) | FUNCTION(expr, "name", args…) | name(args…)
///             | CAST(expr, "type") | TERNARY(predicate, expr, expr)
/// ```
struct PredicateParser {
    private var tokens: [PredicateToken]
    private var position = 0
    private var arguments: [Any?]
    private var argumentIndex = 0
    /// How deep the recursive descent is now (see ``maximumNestingDepth``).
    private var depth = 0
    /// Whether the nesting limit has stopped the parse: once it has, the parse is over (no other
    /// reading of a "(" is tried; see ``notPredicate()``).
    private var reachedNestingLimit = false
    /// Whether the string has a "(", the only token the parser backtracks over: without one, no
    /// rule runs twice at a token and memoizing would only cost time.
    private let mayBacktrack: Bool
    /// Predicates and expressions already parsed, by the token they start at (see ``memoized``).
    private var predicateMemo: [Int: Memo<PredicateNode>] = [:]
    private var expressionMemo: [Int: Memo<ExpressionNode>] = [:]

    /// The deepest tree accepted. A deeper predicate or expression is a syntax error instead of
    /// a stack overflow in the recursive binder, evaluators, formatter and SQL compiler that walk
    /// the tree (found by the predicate fuzzer: a few thousand "(" crashed the process).
    static let maximumTreeDepth = 100

    /// The deepest recursion of the parser itself, counted in parentheses, `NOT`s, unary
    /// minuses, braces and function calls. Several times `maximumTreeDepth`, so that the
    /// printed form of any accepted tree (which parenthesises every level) parses again.
    static let maximumNestingDepth = 5 * maximumTreeDepth

    init(format: String, arguments: [Any?]) throws {
        let tokens = try PredicateLexer.tokens(of: format)
        self.tokens = tokens
        self.mayBacktrack = tokens.contains { token in
            if case .symbol("(") = token.kind { return true }
            return false
        }
        self.arguments = arguments
    }

    /// Parses a whole predicate; trailing tokens are an error.
    mutating func parsePredicate() throws -> PredicateNode {
        let node = try orPredicate()
        guard case .end = current.kind else {
            throw PredicateSyntaxError(message: "Unexpected \(describe(current)) after the end of the predicate", offset: current.offset)
        }
        if node.isDeeper(than: Self.maximumTreeDepth) { throw tooDeep() }
        return node
    }

    /// Parses a whole expression; trailing tokens are an error.
    mutating func parseExpression() throws -> ExpressionNode {
        let node = try expression()
        guard case .end = current.kind else {
            throw PredicateSyntaxError(message: "Unexpected \(describe(current)) after the end of the expression", offset: current.offset)
        }
        if node.isDeeper(than: Self.maximumTreeDepth) { throw tooDeep() }
        return node
    }

    // MARK: Token helpers

    private var current: PredicateToken { tokens[min(position, tokens.count - 1)] }

    private mutating func advance() { position = min(position + 1, tokens.count - 1) }

    /// Enters one level of nesting; callers leave it with `defer { depth -= 1 }`.
    private mutating func enterNesting() throws {
        guard depth < Self.maximumNestingDepth else {
            reachedNestingLimit = true
            throw tooDeep(offset: current.offset)
        }
        depth += 1
    }

    // MARK: Memoization

    /// The outcome of parsing one rule from one token: the tree and where the parse ended, or the
    /// error it threw; and the format argument the parse started at.
    private struct Memo<Node> {
        enum Outcome {
            case parsed(Node, endPosition: Int, endArgumentIndex: Int)
            case failed(PredicateSyntaxError)
        }
        var startArgumentIndex: Int
        var outcome: Outcome
    }

    /// Runs `parse` at the current token, or replays its earlier outcome from `table`.
    ///
    /// A "(" may open a nested predicate or a parenthesised expression, and the parser tries the
    /// first reading before the second (see ``notPredicate()``). Without memoization each
    /// parenthesis doubles the work of every `TERNARY` or `SUBQUERY` predicate inside it: the
    /// predicate fuzzer found 270 bytes that took a minute. With it, each rule runs at most once
    /// per token, and a parse is polynomial in the length of the string.
    private mutating func memoized<Node>(
        _ table: WritableKeyPath<PredicateParser, [Int: Memo<Node>]>, _ parse: (inout PredicateParser) throws -> Node
    ) throws -> Node {
        guard mayBacktrack else { return try parse(&self) }
        let start = position
        let startArgumentIndex = argumentIndex
        let outcome: Memo<Node>.Outcome
        if let memo = self[keyPath: table][start], memo.startArgumentIndex == startArgumentIndex {
            outcome = memo.outcome
        } else {
            do {
                let node = try parse(&self)
                outcome = .parsed(node, endPosition: position, endArgumentIndex: argumentIndex)
            } catch let error as PredicateSyntaxError {
                outcome = .failed(error)
            }
            // A result never depends on the depth it was parsed at: reaching the nesting limit
            // ends the whole parse (see ``notPredicate()``), so no refusal for depth is replayed.
            self[keyPath: table][start] = Memo(startArgumentIndex: startArgumentIndex, outcome: outcome)
        }
        switch outcome {
        case .parsed(let node, let endPosition, let endArgumentIndex):
            position = endPosition
            argumentIndex = endArgumentIndex
            return node
        case .failed(let error):
            throw error
        }
    }

    private func tooDeep(offset: Int = 0) -> PredicateSyntaxError {
        PredicateSyntaxError(
            message: "The predicate is nested too deeply (more than \(Self.maximumTreeDepth) levels of parentheses, NOT, braces, minus signs, function calls or chained operators)", offset: offset)
    }

    private func isSymbol(_ symbol: String) -> Bool {
        if case .symbol(let s) = current.kind { return s == symbol }
        return false
    }

    private func isKeyword(_ keyword: String) -> Bool {
        if case .keyword(let k) = current.kind { return k == keyword }
        return false
    }

    private mutating func expectSymbol(_ symbol: String, _ context: String) throws {
        guard isSymbol(symbol) else {
            throw PredicateSyntaxError(message: "Expected '\(symbol)' \(context), found \(describe(current))", offset: current.offset)
        }
        advance()
    }

    private func describe(_ token: PredicateToken) -> String {
        switch token.kind {
        case .identifier(let name): return "key '\(name)'"
        case .keyword(let word): return "'\(word)'"
        case .string(let text): return "string \"\(text)\""
        case .integer(let value): return "number \(value)"
        case .double(let value): return "number \(value)"
        case .variable(let name): return "variable $\(name)"
        case .formatSpecifier(let spec): return "'%\(spec)'"
        case .collectionOperator(let name): return "'@\(name)'"
        case .symbol(let symbol): return "'\(symbol)'"
        case .end: return "the end of the string"
        }
    }

    // MARK: Predicates

    private mutating func orPredicate() throws -> PredicateNode {
        try memoized(\.predicateMemo) { try $0.parseOr() }
    }

    private mutating func parseOr() throws -> PredicateNode {
        try enterNesting()
        defer { depth -= 1 }
        var terms = [try andPredicate()]
        while isKeyword("OR") || isSymbol("||") {
            advance()
            terms.append(try andPredicate())
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func andPredicate() throws -> PredicateNode {
        var terms = [try notPredicate()]
        while isKeyword("AND") || isSymbol("&&") {
            advance()
            terms.append(try notPredicate())
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    private mutating func notPredicate() throws -> PredicateNode {
        try enterNesting()
        defer { depth -= 1 }
        if isKeyword("NOT") || isSymbol("!") {
            advance()
            return .not(try notPredicate())
        }
        if isKeyword("TRUEPREDICATE") {
            advance()
            return .constant(true)
        }
        if isKeyword("FALSEPREDICATE") {
            advance()
            return .constant(false)
        }
        if isSymbol("(") {
            // "(" may open a nested predicate or a parenthesised expression ("(a + b) > 3"):
            // try the predicate first and fall back.
            let saved = (position, argumentIndex, depth)
            advance()
            var nestedError: PredicateSyntaxError?
            do {
                let nested = try orPredicate()
                if isSymbol(")") {
                    advance()
                    if !isComparisonOperatorAhead() { return nested }
                } else {
                    nestedError = PredicateSyntaxError(message: "Expected ')' to close the parenthesis at offset \(tokens[saved.0].offset), found \(describe(current))", offset: current.offset)
                }
            } catch let error as PredicateSyntaxError {
                // Too deep is final: the other reading is no shallower, and trying it after every
                // refusal would redo the work of everything inside once per parenthesis.
                if reachedNestingLimit { throw error }
                nestedError = error
            }
            (position, argumentIndex, depth) = saved
            do {
                return try comparison()
            } catch let error as PredicateSyntaxError {
                // Report whichever reading got further into the string.
                if let nestedError, nestedError.offset > error.offset { throw nestedError }
                throw error
            }
        }
        return try comparison()
    }

    private func isComparisonOperatorAhead() -> Bool {
        switch current.kind {
        case .symbol(let s): return ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "+", "-", "*", "/", "**"].contains(s)
        case .keyword(let k): return ["IN", "LIKE", "MATCHES", "BEGINSWITH", "ENDSWITH", "CONTAINS", "BETWEEN"].contains(k)
        default: return false
        }
    }

    private mutating func comparison() throws -> PredicateNode {
        var modifier = ComparisonModifier.direct
        if case .keyword(let word) = current.kind {
            switch word {
            case "ANY", "SOME": modifier = .any
            case "ALL": modifier = .all
            case "NONE": modifier = .none
            default: break
            }
            if modifier != .direct { advance() }
        }
        let lhs = try expression()
        let operatorToken = current
        let op: ComparisonOperator
        switch operatorToken.kind {
        case .symbol("=="), .symbol("="): op = .equal
        case .symbol("!="), .symbol("<>"): op = .notEqual
        case .symbol("<"): op = .lessThan
        case .symbol("<="), .symbol("=<"): op = .lessThanOrEqual
        case .symbol(">"): op = .greaterThan
        case .symbol(">="), .symbol("=>"): op = .greaterThanOrEqual
        case .keyword("MATCHES"): op = .matches
        case .keyword("LIKE"): op = .like
        case .keyword("BEGINSWITH"): op = .beginsWith
        case .keyword("ENDSWITH"): op = .endsWith
        case .keyword("CONTAINS"): op = .contains
        case .keyword("IN"): op = .in
        case .keyword("BETWEEN"): op = .between
        default:
            throw PredicateSyntaxError(message: "Expected a comparison operator (==, !=, <, >, IN, CONTAINS, BEGINSWITH, LIKE, …), found \(describe(operatorToken))", offset: operatorToken.offset)
        }
        advance()
        var options = ComparisonOptions()
        if isSymbol("[") {
            let optionsOffset = current.offset
            advance()
            guard case .identifier(let letters) = current.kind else {
                throw PredicateSyntaxError(message: "Expected comparison options such as [c], [d] or [cd]", offset: optionsOffset)
            }
            for letter in letters.lowercased() {
                switch letter {
                case "c": options.insert(.caseInsensitive)
                case "d": options.insert(.diacriticInsensitive)
                case "n": options.insert(.normalized)
                case "l": break  // locale-sensitive: Strata's folding is already locale-independent
                default:
                    throw PredicateSyntaxError(message: "Unknown comparison option '\(letter)' (use c, d or n)", offset: current.offset)
                }
            }
            advance()
            try expectSymbol("]", "to close the comparison options")
        }
        let rhsOffset = current.offset
        let rhs = try expression()
        if op == .between {
            let count: Int?
            switch rhs {
            case .aggregate(let items): count = items.count
            case .constant(.array(let items)): count = items.count
            default: count = nil
            }
            if let count, count != 2 {
                throw PredicateSyntaxError(message: "BETWEEN needs exactly two bounds, as in BETWEEN {1, 10}", offset: rhsOffset)
            }
        }
        return .comparison(ComparisonNode(modifier: modifier, lhs: lhs, op: op, options: options, rhs: rhs))
    }

    // MARK: Expressions

    private mutating func expression() throws -> ExpressionNode {
        try memoized(\.expressionMemo) { try $0.parseSum() }
    }

    private mutating func parseSum() throws -> ExpressionNode {
        try enterNesting()
        var levels = 1
        defer { depth -= levels }
        var node = try term()
        while isSymbol("+") || isSymbol("-") {
            let name = isSymbol("+") ? "add:to:" : "from:subtract:"
            advance()
            try enterNesting()
            levels += 1
            node = .function(name, [node, try term()])
        }
        return node
    }

    private mutating func term() throws -> ExpressionNode {
        var levels = 0
        defer { depth -= levels }
        var node = try power()
        while isSymbol("*") || isSymbol("/") {
            let name = isSymbol("*") ? "multiply:by:" : "divide:by:"
            advance()
            try enterNesting()
            levels += 1
            node = .function(name, [node, try power()])
        }
        return node
    }

    private mutating func power() throws -> ExpressionNode {
        var levels = 0
        defer { depth -= levels }
        var node = try unary()
        while isSymbol("**") {
            advance()
            try enterNesting()
            levels += 1
            node = .function("raise:toPower:", [node, try unary()])
        }
        return node
    }

    private mutating func unary() throws -> ExpressionNode {
        try enterNesting()
        defer { depth -= 1 }
        if isSymbol("-") {
            advance()
            let operand = try unary()
            switch operand {
            case .constant(.integer(let v)) where v != Int64.min: return .constant(.integer(-v))
            case .constant(.double(let v)): return .constant(.double(-v))
            case .constant(.decimal(let v)): return .constant(.decimal(-v))
            default: return .function("from:subtract:", [.constant(.integer(0)), operand])
            }
        }
        return try postfix()
    }

    private mutating func postfix() throws -> ExpressionNode {
        var levels = 0
        defer { depth -= levels }
        var node = try primary()
        while true {
            if isSymbol(".") || isSymbol("[") {
                try enterNesting()
                levels += 1
            }
            if isSymbol(".") {
                advance()
                let component = try keyComponent()
                node = appending([component], to: node)
            } else if isSymbol("[") {
                let offset = current.offset
                advance()
                let index: ExpressionNode
                if isKeyword("FIRST") {
                    index = .constant(.string("FIRST"))
                    advance()
                } else if isKeyword("LAST") {
                    index = .constant(.string("LAST"))
                    advance()
                } else if isKeyword("SIZE") {
                    index = .constant(.string("SIZE"))
                    advance()
                } else {
                    index = try expression()
                }
                try expectSymbol("]", "to close the index that starts at offset \(offset)")
                node = .function("objectFrom:withIndex:", [node, index])
            } else {
                return node
            }
        }
    }

    private func appending(_ components: [String], to node: ExpressionNode) -> ExpressionNode {
        switch node {
        case .keyPath(let existing): return .keyPath(existing + components)
        case .evaluatedObject: return .keyPath(components)
        case .keyPathFrom(let base, let existing): return .keyPathFrom(base, existing + components)
        default: return .keyPathFrom(node, components)
        }
    }

    private mutating func keyComponent() throws -> String {
        switch current.kind {
        case .identifier(let name):
            advance()
            return name
        case .collectionOperator(let name):
            advance()
            return "@" + name
        case .keyword(let word):
            // Reserved words after a dot are keys (Core Data accepts "employee.first" only escaped;
            // accept them for friendliness since the position is unambiguous).
            advance()
            return word.lowercased()
        case .formatSpecifier("K"):
            let offset = current.offset
            advance()
            return try keyArgument(offset: offset).joined(separator: ".")
        default:
            throw PredicateSyntaxError(message: "Expected a key after '.', found \(describe(current))", offset: current.offset)
        }
    }

    private mutating func primary() throws -> ExpressionNode {
        try enterNesting()
        defer { depth -= 1 }
        let token = current
        switch token.kind {
        case .integer(let value):
            advance()
            return .constant(.integer(value))
        case .double(let value):
            advance()
            return .constant(.double(value))
        case .string(let text):
            advance()
            return .constant(.string(text))
        case .variable(let name):
            advance()
            return .variable(name)
        case .collectionOperator(let name):
            advance()
            return .keyPath(["@" + name])
        case .formatSpecifier(let spec):
            advance()
            return try formatArgument(spec, offset: token.offset)
        case .identifier(let name):
            advance()
            if isSymbol("(") || (isSymbol(":") && nextIsSymbol("(")) {
                return try functionCall(named: name, offset: token.offset)
            }
            return .keyPath([name])
        case .keyword(let word):
            switch word {
            case "TRUE", "YES":
                advance()
                return .constant(.bool(true))
            case "FALSE", "NO":
                advance()
                return .constant(.bool(false))
            case "NULL", "NIL":
                advance()
                return .constant(.null)
            case "SELF":
                advance()
                return .evaluatedObject
            case "SUBQUERY":
                advance()
                return try subquery(offset: token.offset)
            case "FUNCTION":
                advance()
                return try functionExpression(offset: token.offset)
            case "CAST":
                advance()
                return try cast(offset: token.offset)
            case "TERNARY":
                advance()
                try expectSymbol("(", "after TERNARY")
                let condition = try orPredicate()
                try expectSymbol(",", "after the TERNARY condition")
                let whenTrue = try expression()
                try expectSymbol(",", "after the TERNARY true value")
                let whenFalse = try expression()
                try expectSymbol(")", "to close TERNARY")
                return .conditional(condition, whenTrue, whenFalse)
            default:
                throw PredicateSyntaxError(message: "Expected a value or key, found reserved word '\(word)' (escape a key with that name as #\(word.lowercased()))", offset: token.offset)
            }
        case .symbol("{"):
            advance()
            var items: [ExpressionNode] = []
            if !isSymbol("}") {
                items.append(try expression())
                while isSymbol(",") {
                    advance()
                    items.append(try expression())
                }
            }
            try expectSymbol("}", "to close the list that starts at offset \(token.offset)")
            return Self.list(items)
        case .symbol("("):
            advance()
            let inner = try expression()
            try expectSymbol(")", "to close the parenthesis at offset \(token.offset)")
            return inner
        case .end:
            throw PredicateSyntaxError(message: "The predicate ends where a value or key was expected", offset: token.offset)
        default:
            throw PredicateSyntaxError(message: "Expected a value or key, found \(describe(token))", offset: token.offset)
        }
    }

    /// A `{…}` list: a constant array when every item is a constant (as a `%@` array argument
    /// gives), so a list and its printed form parse to the same tree.
    static func list(_ items: [ExpressionNode]) -> ExpressionNode {
        var values: [PredicateValue] = []
        for item in items {
            guard case .constant(let value) = item else { return .aggregate(items) }
            values.append(value)
        }
        return .constant(.array(values))
    }

    private func nextIsSymbol(_ symbol: String) -> Bool {
        let next = tokens[min(position + 1, tokens.count - 1)]
        if case .symbol(let s) = next.kind { return s == symbol }
        return false
    }

    private mutating func arguments(closing: String) throws -> [ExpressionNode] {
        var items: [ExpressionNode] = []
        if !isSymbol(")") {
            items.append(try expression())
            while isSymbol(",") {
                advance()
                items.append(try expression())
            }
        }
        try expectSymbol(")", closing)
        return items
    }

    /// `name(args)` or `name:(args)`: a built-in function.
    private mutating func functionCall(named name: String, offset: Int) throws -> ExpressionNode {
        if isSymbol(":") { advance() }
        try expectSymbol("(", "after function name \(name)")
        let args = try arguments(closing: "to close the arguments of \(name)")
        guard let canonical = ExpressionFunctions.canonicalName(name, argumentCount: args.count) else {
            throw PredicateSyntaxError(message: "Unknown function '\(name)' with \(args.count) argument(s)", offset: offset)
        }
        return .function(canonical, args)
    }

    /// `FUNCTION(receiver, 'selector:', args…)`.
    private mutating func functionExpression(offset: Int) throws -> ExpressionNode {
        try expectSymbol("(", "after FUNCTION")
        let receiver = try expression()
        try expectSymbol(",", "after the FUNCTION receiver")
        guard case .string(let selector) = current.kind else {
            throw PredicateSyntaxError(message: "FUNCTION needs the function name as a string, as in FUNCTION(SELF, 'uppercase:')", offset: current.offset)
        }
        advance()
        var args = [receiver]
        while isSymbol(",") {
            advance()
            args.append(try expression())
        }
        try expectSymbol(")", "to close FUNCTION")
        // A variable receiver (`$entityPolicy`, `$manager` in a migration's property mappings)
        // is an object whose methods are only known when the expression is evaluated.
        var receiverIsVariable = false
        if case .variable = receiver { receiverIsVariable = true }
        guard receiverIsVariable || ExpressionFunctions.isKnown(selector) else {
            throw PredicateSyntaxError(message: "Unknown function '\(selector)'", offset: offset)
        }
        return .function(selector, args)
    }

    /// `CAST(value, 'NSDate')` and friends.
    private mutating func cast(offset: Int) throws -> ExpressionNode {
        try expectSymbol("(", "after CAST")
        let value = try expression()
        try expectSymbol(",", "after the CAST value")
        guard case .string(let type) = current.kind else {
            throw PredicateSyntaxError(message: "CAST needs a type name string, as in CAST(0, 'NSDate')", offset: current.offset)
        }
        advance()
        try expectSymbol(")", "to close CAST")
        if case .constant(let constant) = value, let converted = CastConversion.convert(constant, to: type) {
            return .constant(converted)
        }
        if case .constant = value {
            throw PredicateSyntaxError(message: "Cannot CAST that value to '\(type)'", offset: offset)
        }
        return .function("castObject:toType:", [value, .constant(.string(type))])
    }

    /// `SUBQUERY(collection, $variable, predicate)`.
    private mutating func subquery(offset: Int) throws -> ExpressionNode {
        try expectSymbol("(", "after SUBQUERY")
        let collection = try expression()
        try expectSymbol(",", "after the SUBQUERY collection")
        guard case .variable(let variable) = current.kind else {
            throw PredicateSyntaxError(message: "SUBQUERY needs a variable such as $x as its second argument", offset: current.offset)
        }
        advance()
        try expectSymbol(",", "after the SUBQUERY variable")
        let predicate = try orPredicate()
        try expectSymbol(")", "to close the SUBQUERY that starts at offset \(offset)")
        return .subquery(collection, variable, predicate)
    }

    // MARK: Format arguments

    private mutating func nextArgument(offset: Int, spec: String) throws -> Any? {
        guard argumentIndex < arguments.count else {
            throw PredicateSyntaxError(message: "'%\(spec)' has no matching argument (only \(arguments.count) given)", offset: offset)
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }

    private mutating func keyArgument(offset: Int) throws -> [String] {
        let argument = try nextArgument(offset: offset, spec: "K")
        guard let key = argument as? String, !key.isEmpty else {
            throw PredicateSyntaxError(message: "'%K' needs a key path string argument, got \(argument.map { "\(type(of: $0))" } ?? "nil")", offset: offset)
        }
        return key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    private mutating func formatArgument(_ spec: String, offset: Int) throws -> ExpressionNode {
        let letter = spec.last ?? "@"
        if letter == "K" { return .keyPath(try keyArgument(offset: offset)) }
        guard Self.specifierTakesValue(letter) else { return try Self.argumentNode(spec, nil, offset: offset) }
        return try Self.argumentNode(spec, try nextArgument(offset: offset, spec: spec), offset: offset)
    }
}
