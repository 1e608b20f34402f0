/// An XHTML page assembled from escaped blocks: well-formed XML, inline CSS, no script.
struct HTMLPage {
    private var title: String
    private var body: [String] = []

    /// Creates an empty page.
    init(title: String) {
        self.title = title
    }

    /// A heading of `level` (1 to 3).
    mutating func heading(_ level: Int, _ text: String) {
        body.append("<h\(level)>\(XMLText.escape(text))</h\(level)>")
    }

    /// A paragraph, optionally with a CSS class (`meta`, `met`, `missed`, `skipped`).
    mutating func paragraph(_ text: String, className: String? = nil) {
        let attribute = className.map { " class=\"\(XMLText.escape($0))\"" } ?? ""
        body.append("<p\(attribute)>\(XMLText.escape(text))</p>")
    }

    /// A bulleted list of (text, CSS class).
    mutating func list(_ items: [(String, String)]) {
        body.append("<ul>" + items.map { "<li class=\"\(XMLText.escape($0.1))\">\(XMLText.escape($0.0))</li>" }.joined() + "</ul>")
    }

    /// A table with a header row.
    mutating func table(header: [String], rows: [[String]]) {
        let head = "<tr>" + header.map { "<th>\(XMLText.escape($0))</th>" }.joined() + "</tr>"
        let cells = rows.map { "<tr>" + $0.map { "<td>\(XMLText.escape($0))</td>" }.joined() + "</tr>" }.joined()
        body.append("<table><thead>\(head)</thead><tbody>\(cells)</tbody></table>")
    }

    /// An inline SVG chart.
    mutating func figure(_ chart: SVGCanvas) {
        body.append("<figure>\(chart.render())</figure>")
    }

    /// The page.
    func render() -> String {
        """
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
        <head>
        <meta charset="utf-8"/>
        <title>\(XMLText.escape(title))</title>
        <style>
        body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1000px; color: #222; }
        h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
        h3 { font-size: 1em; margin-top: 1.6em; }
        p.meta { color: #666; font-size: 0.9em; margin: 0.2em 0; }
        .met { color: \(ChartPalette.met); }
        .missed { color: \(ChartPalette.missed); }
        p.missed { font-weight: bold; }
        li { margin: 0.15em 0; }
        .skipped { color: \(ChartPalette.skipped); }
        figure { margin: 0.6em 0; }
        table { border-collapse: collapse; font-size: 0.9em; }
        th, td { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: left; }
        </style>
        </head>
        <body>
        \(body.joined(separator: "\n"))
        </body>
        </html>

        """
    }
}
