/// Renders a run report as aligned plain text (the default format).
public enum TextReport {
    /// The text form of `report`.
    public static func render(_ report: BenchmarkRunReport) -> String {
        let document = ReportDocument(report: report)
        var output = "\(document.title)\n"
        output += String(repeating: "=", count: document.title.count) + "\n"
        output += document.header.map { $0 + "\n" }.joined()
        for section in document.sections {
            output += "\n== \(section.title) ==\n"
            for block in section.blocks {
                switch block {
                case .table(let table):
                    output += table.renderText()
                case .line(let line):
                    output += "  \(line)\n"
                case .target(let outcome):
                    output += "  \(targetLine(outcome))\n"
                }
            }
        }
        return output
    }

    /// One target verdict, e.g. `target met: wall clock ratio ≤ 1.50× (strata 1 ms ÷ raw 1 ms = 1.00× ...)`.
    static func targetLine(_ outcome: TargetOutcome) -> String {
        "target \(outcome.statusLabel): [\(outcome.subject)] \(outcome.description) -- \(outcome.detail)"
    }
}
