/// A piece of SQL with its bound values. Values are never pasted into the text: each one is a
/// `?` placeholder with its value in `bindings`, in order.
struct SQLFragment: CustomStringConvertible {
    var text: String
    var bindings: [StoredValue]

    init(_ text: String, _ bindings: [StoredValue] = []) {
        self.text = text
        self.bindings = bindings
    }

    /// A placeholder bound to `value`.
    static func value(_ value: StoredValue) -> SQLFragment { SQLFragment("?", [value]) }

    static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(lhs.text + rhs.text, lhs.bindings + rhs.bindings)
    }

    static func + (lhs: SQLFragment, rhs: String) -> SQLFragment {
        SQLFragment(lhs.text + rhs, lhs.bindings)
    }

    static func + (lhs: String, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(lhs + rhs.text, rhs.bindings)
    }

    /// Joins fragments with a separator.
    static func join(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment("")
        for (index, part) in parts.enumerated() {
            if index > 0 { result.text += separator }
            result.text += part.text
            result.bindings += part.bindings
        }
        return result
    }

    /// `"name"` with embedded quotes doubled.
    static func identifier(_ name: String) -> String {
        guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
        var escaped = ""
        for character in name {
            if character == "\"" { escaped.append("\"") }
            escaped.append(character)
        }
        return "\"" + escaped + "\""
    }

    var description: String { text }
}
