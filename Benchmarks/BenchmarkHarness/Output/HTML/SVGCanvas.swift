import Foundation

/// A minimal SVG writer: shapes and text appended in order, rendered as one `<svg>` element.
struct SVGCanvas {
    /// Width in pixels.
    var width: Double
    /// Height in pixels.
    var height: Double
    /// The accessible title of the chart.
    var title: String
    private var elements: [String] = []

    /// Creates an empty canvas.
    init(width: Double, height: Double, title: String) {
        self.width = width
        self.height = height
        self.title = title
    }

    /// A filled rectangle.
    mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String, opacity: Double = 1, tooltip: String? = nil) {
        let shape =
            "<rect x=\"\(XMLText.coordinate(x))\" y=\"\(XMLText.coordinate(y))\" width=\"\(XMLText.coordinate(max(width, 0)))\" "
            + "height=\"\(XMLText.coordinate(max(height, 0)))\" fill=\"\(fill)\""
            + (opacity < 1 ? " fill-opacity=\"\(String(format: "%.2f", opacity))\"" : "")
        if let tooltip {
            elements.append(shape + "><title>\(XMLText.escape(tooltip))</title></rect>")
        } else {
            elements.append(shape + "/>")
        }
    }

    /// A straight line.
    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1, dashed: Bool = false) {
        elements.append(
            "<line x1=\"\(XMLText.coordinate(x1))\" y1=\"\(XMLText.coordinate(y1))\" x2=\"\(XMLText.coordinate(x2))\" "
                + "y2=\"\(XMLText.coordinate(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(XMLText.coordinate(width))\""
                + (dashed ? " stroke-dasharray=\"4 3\"" : "") + "/>")
    }

    /// A polyline through `points`.
    mutating func polyline(_ points: [(x: Double, y: Double)], stroke: String) {
        let list = points.map { "\(XMLText.coordinate($0.x)),\(XMLText.coordinate($0.y))" }.joined(separator: " ")
        elements.append("<polyline points=\"\(list)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"2\"/>")
    }

    /// A filled circle with a tooltip.
    mutating func circle(x: Double, y: Double, radius: Double, fill: String, tooltip: String) {
        elements.append(
            "<circle cx=\"\(XMLText.coordinate(x))\" cy=\"\(XMLText.coordinate(y))\" r=\"\(XMLText.coordinate(radius))\" "
                + "fill=\"\(fill)\"><title>\(XMLText.escape(tooltip))</title></circle>")
    }

    /// Text anchored at (`x`, `y`); `anchor` is `start`, `middle` or `end`.
    mutating func text(_ content: String, x: Double, y: Double, anchor: String = "start", size: Double = 11, fill: String = "#222", bold: Bool = false) {
        elements.append(
            "<text x=\"\(XMLText.coordinate(x))\" y=\"\(XMLText.coordinate(y))\" text-anchor=\"\(anchor)\" "
                + "font-size=\"\(XMLText.coordinate(size))\" fill=\"\(fill)\"" + (bold ? " font-weight=\"bold\"" : "")
                + ">\(XMLText.escape(content))</text>")
    }

    /// The `<svg>` element (inline in HTML, or a standalone `.svg` file with `standalone`).
    func render(standalone: Bool = false) -> String {
        let prolog = standalone ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" : ""
        return prolog
            + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(XMLText.coordinate(width))\" height=\"\(XMLText.coordinate(height))\" "
            + "viewBox=\"0 0 \(XMLText.coordinate(width)) \(XMLText.coordinate(height))\" role=\"img\" "
            + "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">"
            + "<title>\(XMLText.escape(title))</title>"
            + "<rect x=\"0\" y=\"0\" width=\"\(XMLText.coordinate(width))\" height=\"\(XMLText.coordinate(height))\" fill=\"#ffffff\"/>"
            + elements.joined() + "</svg>"
    }
}

/// The colours of the charts (also used by the page's CSS).
enum ChartPalette {
    static let strata = "#3b6fb6"
    static let raw = "#e0892b"
    static let met = "#2e8b3e"
    static let missed = "#c62828"
    static let skipped = "#8a8a8a"
    static let grid = "#d9d9d9"
    static let axis = "#555555"

    /// The colour of a pair side.
    static func color(_ side: PairSide) -> String {
        side == .strata ? strata : raw
    }

    /// The colour of a target verdict.
    static func color(_ status: TargetOutcome.Status) -> String {
        switch status {
        case .met: met
        case .missed: missed
        case .skipped: skipped
        }
    }
}
