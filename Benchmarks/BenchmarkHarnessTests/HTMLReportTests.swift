import Foundation
import Testing

@testable import BenchmarkHarness

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Counts the elements of an XML document, or records why it does not parse.
private final class ElementCounter: NSObject, XMLParserDelegate {
    var counts: [String: Int] = [:]
    var text = ""

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        counts[elementName, default: 0] += 1
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    /// Parses `document`; nil if it is not well-formed XML.
    static func parse(_ document: String) -> ElementCounter? {
        // XMLParser on Linux does not resolve the HTML5 doctype; it carries no entities, so drop it.
        let body = document.replacingOccurrences(of: "<!DOCTYPE html>", with: "")
        let parser = XMLParser(data: Data(body.utf8))
        let counter = ElementCounter()
        parser.delegate = counter
        return parser.parse() ? counter : nil
    }
}

@Suite("HTML report")
struct HTMLReportTests {
    /// Two sizes of one fetch pair (memory over N), a pair with awkward characters, targets met and missed.
    private func fixtureReport() -> BenchmarkRunReport {
        var benchmarks: [BenchmarkResults] = []
        var pairs: [PairResults] = []
        for (label, scale) in [("10k", 1.0), ("100k", 10.0)] {
            let name = "fetch \(label) as faults"
            benchmarks.append(Fixtures.results("\(name) [strata]", [.wallClock: 3_000_000 * scale, .peakHeapDelta: 2_000_000 * scale], pairSide: .strata))
            benchmarks.append(Fixtures.results("\(name) [raw]", [.wallClock: 2_000_000 * scale, .peakHeapDelta: 500_000 * scale], pairSide: .raw))
            pairs.append(PairResults(name: name, strataBenchmark: "\(name) [strata]", rawBenchmark: "\(name) [raw]", ratios: [.wallClock: 1.5, .peakHeapDelta: 4]))
        }
        let odd = "a <b> & \"c\" 'd' \u{1}"
        benchmarks.append(Fixtures.results("\(odd) [strata]", [.wallClock: 1_000], pairSide: .strata))
        benchmarks.append(Fixtures.results("\(odd) [raw]", [.wallClock: 2_000], pairSide: .raw))
        pairs.append(PairResults(name: odd, strataBenchmark: "\(odd) [strata]", rawBenchmark: "\(odd) [raw]", ratios: [.wallClock: 0.5]))
        benchmarks.append(Fixtures.results("standalone < 1", [.wallClock: 5_000]))
        var report = Fixtures.report(benchmarks, quick: true)
        report.pairs = pairs
        report.targets = [
            TargetOutcome(subject: "fetch 10k as faults", description: "wall clock ratio ≤ 2.00×", status: .met, detail: "1.50×"),
            TargetOutcome(subject: "fetch 100k as faults", description: "wall clock ratio ≤ 1.20×", status: .missed, detail: "1.50× > 1.20×"),
        ]
        report.failures = [BenchmarkFailure(benchmark: "broken & gone", message: "threw <oops>")]
        return report
    }

    @Test func reportIsWellFormedXMLWithTheExpectedElements() throws {
        var report = fixtureReport()
        var baseline = fixtureReport()
        baseline.pairs = baseline.pairs.map { pair in
            var older = pair
            older.ratios[.wallClock] = 2
            return older
        }
        report.comparison = BaselineComparison.compare(
            current: report,
            baseline: Fixtures.report(
                baseline.benchmarks.map { results in
                    var slower = results
                    slower.statistics = results.statistics.mapValues { MetricStatistics(constant: $0.p50 * 1.5, count: 5) }
                    return slower
                }), baselineName: "main")
        let html = HTMLReport.render(report, baseline: baseline)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        let parsed = try #require(ElementCounter.parse(html))
        #expect(parsed.counts["html"] == 1)
        #expect(parsed.counts["style"] == 1)
        #expect(parsed.counts["script"] == nil)
        // Overview, two charts per pair (wall clock; peak heap where measured), one memory-over-N line, two baseline charts.
        #expect(parsed.counts["svg"] == 1 + 2 + 2 + 1 + 1 + 2)
        #expect(parsed.counts["polyline"] == 2)  // strata and raw over N
        #expect((parsed.counts["rect"] ?? 0) > 20)
        // Escaped text comes back whole; the control character is dropped.
        #expect(parsed.text.contains("a <b> & \"c\" 'd' "))
        #expect(!parsed.text.contains("\u{1}"))
        #expect(parsed.text.contains("fetch N as faults"))
        #expect(parsed.text.contains("Baseline comparison: main"))
        #expect(parsed.text.contains("threw <oops>"))
        #expect(html.contains("class=\"missed\""))
        #expect(html.contains("class=\"met\""))
    }

    @Test func chartsAreStandaloneSVGFiles() throws {
        let charts = HTMLReport.charts(fixtureReport())
        #expect(charts.map(\.name) == ["pairs-wall-clock-ratio.svg", "memory-over-n-fetch-n-as-faults.svg"])
        for chart in charts {
            #expect(chart.svg.hasPrefix("<?xml"))
            let parsed = try #require(ElementCounter.parse(chart.svg))
            #expect(parsed.counts["svg"] == 1)
        }
    }

    @Test func memoryScalingFindsNAndProportionalSizes() {
        let scaling = MemoryScaling(names: [
            "fetchLimit 100 offset 0 sorted over 10k", "fetchLimit 100 offset 9k sorted over 10k",
            "fetchLimit 100 offset 0 sorted over 100k", "fetchLimit 100 offset 90k sorted over 100k",
            "fire 10k faults one by one", "batch insert of 20k rows", "count with a predicate",
        ])
        #expect(scaling.series.map(\.title) == ["fetchLimit 100 offset 0 sorted over N", "fetchLimit 100 offset 0.9N sorted over N"])
        #expect(scaling.series.allSatisfy { $0.points.map(\.n) == [10_000, 100_000] })
        #expect(scaling.singleSize == ["fire 10k faults one by one", "batch insert of 20k rows", "count with a predicate"])
    }

    @Test func xmlTextEscapesAndDropsForbiddenCharacters() {
        #expect(XMLText.escape("<a href=\"x\">'&'</a>\u{0}\u{B}ok") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;ok")
        #expect(XMLText.coordinate(12.345) == "12.3")
        #expect(XMLText.coordinate(4.0) == "4")
        #expect(XMLText.coordinate(.nan) == "0")
    }

    @Test func suiteRunWritesTheHTMLReportAndCharts() throws {
        try Fixtures.withTemporaryDirectory { directory in
            let suite = BenchmarkSuite(name: "Tiny")
            suite.pair("sum 1k", configuration: tinyConfiguration) { context in
                let total = (0..<1_000).reduce(0, +)
                context.blackHole(total)
                return RowDigest(count: 1_000, checksum: UInt64(total))
            } raw: { context in
                let total = (0..<1_000).reduce(0, +)
                context.blackHole(total)
                return RowDigest(count: 1_000, checksum: UInt64(total))
            }
            let console = CapturedConsole()
            let html = directory + "/report.html"
            let code = suite.run(arguments: ["bench", "--html", html, "--svg-dir", directory + "/charts"], output: console.output)
            #expect(code == 0)
            #expect(console.errorText.contains("HTML report written to \(html)"))
            let page = try String(contentsOfFile: html, encoding: .utf8)
            #expect(ElementCounter.parse(page) != nil)
            #expect(FileManager.default.fileExists(atPath: directory + "/charts/pairs-wall-clock-ratio.svg"))

            // --from-json renders a stored report without running anything.
            let json = directory + "/report.json"
            try Data(JSONReport.render(fixtureReport()).utf8).write(to: URL(fileURLWithPath: json))
            let again = CapturedConsole()
            let rendered = directory + "/again.html"
            #expect(suite.run(arguments: ["bench", "--from-json", json, "--html", rendered, "--format", "markdown"], output: again.output) == 0)
            #expect(again.standardOutput.hasPrefix("# Strata benchmarks: Fixture"))
            #expect(try String(contentsOfFile: rendered, encoding: .utf8).contains("fetch N as faults"))
        }
    }

    @Test func commandLineTakesTheReportPaths() throws {
        let options = try CommandLineOptions.parse(["--html", "r.html", "--svg-dir=charts", "--from-json", "old.json"])
        #expect(options.htmlPath == "r.html")
        #expect(options.svgDirectory == "charts")
        #expect(options.command == .render("old.json"))
        #expect(throws: CommandLineError.self) { try CommandLineOptions.parse(["--html", ""]) }
        #expect(throws: CommandLineError.self) { try CommandLineOptions.parse(["--from-json", "x.json", "baseline", "update", "main"]) }
    }
}
