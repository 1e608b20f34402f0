import Foundation

/// Prints a run report and writes the files the options ask for: `--output` (the report in
/// `--format`), `--html` (``HTMLReport``) and `--svg-dir` (its main charts).
enum ReportFiles {
    /// Prints and writes `report`; false if a file could not be written.
    static func write(_ report: BenchmarkRunReport, baseline: BenchmarkRunReport?, options: CommandLineOptions, output: ConsoleOutput) -> Bool {
        let rendered = render(report, format: options.format)
        output.standardOutput(rendered)
        var succeeded = true
        if let path = options.outputPath {
            succeeded = save(rendered, to: path, what: "report", output: output) && succeeded
        }
        if let path = options.htmlPath {
            succeeded = save(HTMLReport.render(report, baseline: baseline), to: path, what: "HTML report", output: output) && succeeded
        }
        if let directory = options.svgDirectory {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                output.standardError("error: cannot create \(directory): \(error.localizedDescription)")
                return false
            }
            let charts = HTMLReport.charts(report, baseline: baseline)
            for chart in charts {
                succeeded = save(chart.svg, to: (directory as NSString).appendingPathComponent(chart.name), what: nil, output: output) && succeeded
            }
            output.standardError("\(charts.count) SVG charts written to \(directory)")
        }
        return succeeded
    }

    /// `--from-json PATH`: loads a report written by `--format json` and writes it again as asked.
    static func render(jsonPath: String, options: CommandLineOptions, output: ConsoleOutput) -> Int32 {
        do {
            let report = try JSONReport.decode(Data(contentsOf: URL(fileURLWithPath: jsonPath)))
            return write(report, baseline: nil, options: options, output: output) ? BenchmarkExitCode.success.rawValue : BenchmarkExitCode.failure.rawValue
        } catch {
            output.standardError("error: cannot read the JSON report \(jsonPath): \(JSONReport.describe(error))")
            return BenchmarkExitCode.failure.rawValue
        }
    }

    private static func render(_ report: BenchmarkRunReport, format: CommandLineOptions.OutputFormat) -> String {
        switch format {
        case .text: TextReport.render(report)
        case .markdown: MarkdownReport.render(report)
        case .json: JSONReport.render(report)
        }
    }

    private static func save(_ text: String, to path: String, what: String?, output: ConsoleOutput) -> Bool {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            if let what { output.standardError("\(what) written to \(path)") }
            return true
        } catch {
            output.standardError("error: cannot write \(path): \(error.localizedDescription)")
            return false
        }
    }
}
