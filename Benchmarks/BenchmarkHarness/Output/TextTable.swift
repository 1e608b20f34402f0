import Foundation

/// A table of strings with aligned columns, rendered as plain text or Markdown.
struct TextTable: Equatable {
    /// Horizontal alignment of a column.
    enum Alignment: Equatable {
        /// Flush left (names).
        case left
        /// Flush right (numbers).
        case right
    }

    /// One column's title and alignment.
    struct Column: Equatable {
        var title: String
        var alignment: Alignment
    }

    /// The columns.
    var columns: [Column]
    /// The rows; short rows are padded with empty cells.
    var rows: [[String]]

    /// Creates a table.
    init(columns: [Column], rows: [[String]] = []) {
        self.columns = columns
        self.rows = rows
    }

    /// Aligned plain text: a header, a dashed rule and one line per row, each prefixed by `indent`.
    func renderText(indent: String = "  ") -> String {
        let cells = [columns.map(\.title)] + rows.map(padded)
        var widths = [Int](repeating: 0, count: columns.count)
        for row in cells {
            for (index, cell) in row.enumerated() {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ row: [String]) -> String {
            let text = row.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                return columns[index].alignment == .left ? cell + padding : padding + cell
            }.joined(separator: "  ")
            return indent + text.trimmingTrailingSpaces()
        }
        var lines = [line(columns.map(\.title))]
        lines.append(indent + widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        lines += rows.map { line(padded($0)) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A GitHub-flavoured Markdown table.
    func renderMarkdown() -> String {
        func line(_ row: [String]) -> String {
            "| " + row.map(Self.escapeMarkdown).joined(separator: " | ") + " |"
        }
        var lines = [line(columns.map(\.title))]
        lines.append("|" + columns.map { $0.alignment == .left ? " --- |" : " ---: |" }.joined())
        lines += rows.map { line(padded($0)) }
        return lines.joined(separator: "\n") + "\n"
    }

    private func padded(_ row: [String]) -> [String] {
        if row.count >= columns.count { return Array(row.prefix(columns.count)) }
        return row + [String](repeating: "", count: columns.count - row.count)
    }

    /// Escapes the characters that would break a Markdown table cell.
    static func escapeMarkdown(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "|", with: "\\|")
            .replacingOccurrences(of: "\n", with: " ")
    }
}

extension String {
    /// The string without trailing spaces.
    func trimmingTrailingSpaces() -> String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}
