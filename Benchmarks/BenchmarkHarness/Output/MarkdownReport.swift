/// Renders a run report as GitHub-flavoured Markdown (`--format markdown`).
public enum MarkdownReport {
    /// The Markdown form of `report`.
    public static func render(_ report: BenchmarkRunReport) -> String {
        let document = ReportDocument(report: report)
        var output = "# \(escape(document.title))\n\n"
        output += document.header.map { escape($0) + "  \n" }.joined()
        for section in document.sections {
            if !output.hasSuffix("\n\n") { output += "\n" }
            output += "## \(escape(section.title))\n\n"
            var previousWasTarget = false
            for block in section.blocks {
                switch block {
                case .table(let table):
                    output += (previousWasTarget ? "\n" : "") + table.renderMarkdown() + "\n"
                    previousWasTarget = false
                case .line(let line):
                    output += (previousWasTarget ? "\n" : "") + escape(line) + "\n\n"
                    previousWasTarget = false
                case .target(let outcome):
                    output += "- **\(outcome.statusLabel)** \(escape(outcome.description)) (\(escape(outcome.subject))): \(escape(outcome.detail))\n"
                    previousWasTarget = true
                }
            }
        }
        return output
    }

    /// Escapes the Markdown characters that commonly appear in benchmark names.
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            if "\\`*_[]<>#|".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
