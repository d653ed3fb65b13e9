/// The user's text size, as Dynamic Type names its steps, from extra small to the fifth
/// accessibility size.
public enum TextSize: Int, Sendable, Hashable, CaseIterable, Comparable {
    case xSmall, small, medium, large, xLarge, xxLarge, xxxLarge
    case accessibility1, accessibility2, accessibility3, accessibility4, accessibility5

    /// The point size of the Title 2 text style at this size on iOS (Apple's Dynamic Type table);
    /// the cells' digits use that style, so it sets the cells' scale.
    public var title2PointSize: Double {
        switch self {
        case .xSmall: 19
        case .small: 20
        case .medium: 21
        case .large: 22
        case .xLarge: 24
        case .xxLarge: 26
        case .xxxLarge: 28
        case .accessibility1: 34
        case .accessibility2: 39
        case .accessibility3: 44
        case .accessibility4: 50
        case .accessibility5: 56
        }
    }

    /// The scale relative to the default size, `.large`.
    public var scale: Double { title2PointSize / TextSize.large.title2PointSize }

    /// Whether this is one of the five accessibility sizes.
    public var isAccessibilitySize: Bool { self >= .accessibility1 }

    /// Whether `lhs` is the smaller size.
    public static func < (lhs: TextSize, rhs: TextSize) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where the code field's cells go in the width it has: sizes, spacing and row breaks (UX F2).
///
/// A pure function of the available width, the format, its groups and the text
/// size: cells grow with the text size; when the row would not fit they shrink
/// a little; before the digits would get hard to read, the groups wrap onto rows
/// of their own. Above the default size each step up grows the digits by at least
/// a quarter of its own step, wrapping the groups sooner if it must (UX V14), so a larger
/// text size never shows the same digits. The row is never wider than the width,
/// and a cell is never less than 44 pt tall (the smallest tap target).
public struct CodeLayout: Sendable, Hashable {
    /// One row of cells, as the format's groups on that row: ranges of cell indices.
    public typealias Row = [Range<Int>]

    /// The cell's width, in points.
    public var cellWidth: Double
    /// The cell's height, in points; at least 44.
    public var cellHeight: Double
    /// The space between two cells of a group.
    public var spacing: Double
    /// The space between two groups on a row; the separator is drawn in its middle.
    public var groupSpacing: Double
    /// The separator's width.
    public var separatorWidth: Double
    /// The space between rows.
    public var rowSpacing: Double
    /// The digits' point size.
    public var fontSize: Double
    /// The rows, top to bottom.
    public var rows: [Row]

    /// The cell size at the default text size, in points.
    public static let baseCellWidth = 44.0
    /// The cell height at the default text size, in points.
    public static let baseCellHeight = 54.0
    /// The space between cells at the default text size.
    public static let baseSpacing = 8.0
    /// The smallest cell height: the smallest comfortable tap target.
    public static let minimumCellHeight = 44.0
    /// The least a row may be shrunk to fit before its groups wrap instead.
    public static let minimumShrink = 0.7

    /// The layout of a format's cells in `width` points at a text size.
    ///
    /// A width of zero or less (not yet measured) gives the unshrunk layout on one row.
    public init(width: Double, format: CodeFormat, textSize: TextSize) {
        self.init(width: width, length: format.length, groups: format.groups, textSize: textSize)
    }

    /// The layout of `length` cells in groups of the given sizes, in `width` points.
    public init(width: Double, length: Int, groups: [Int], textSize: TextSize) {
        // Above the default size the digits must outgrow the next smaller size's at this width.
        var smallestFont = 0.0
        if textSize > .large, width > 0, let smaller = TextSize(rawValue: textSize.rawValue - 1) {
            let previous = CodeLayout(width: width, length: length, groups: groups, textSize: smaller)
            smallestFont = previous.fontSize + (textSize.title2PointSize - smaller.title2PointSize) / 4
        }
        let scale = textSize.scale
        let cell = Self.baseCellWidth * scale
        let space = Self.baseSpacing * scale
        let gap = space * 5.5
        let groupRanges = Self.ranges(length: length, groups: groups)

        // Candidates: one row; each group on its own row; then rows of ever fewer cells.
        var candidates: [[Row]] = [[groupRanges]]
        if groupRanges.count > 1 { candidates.append(groupRanges.map { [$0] }) }
        for count in 2...max(2, length) {
            let rows = Self.balancedRows(length: length, count: count).map { [$0] }
            if !candidates.contains(rows) { candidates.append(rows) }
        }

        func naturalWidth(_ rows: [Row]) -> Double {
            rows.map { row in
                row.reduce(0) { $0 + Double($1.count) * cell + Double(max(0, $1.count - 1)) * space }
                    + Double(max(0, row.count - 1)) * gap
            }.max() ?? 0
        }
        func shrink(_ rows: [Row]) -> Double {
            guard width > 0 else { return 1 }
            return min(1, width / naturalWidth(rows))
        }

        func fits(_ rows: [Row]) -> Bool {
            shrink(rows) >= Self.minimumShrink
                && textSize.title2PointSize * shrink(rows) >= smallestFont - 0.000_1
        }
        let chosen =
            candidates.first(where: fits)
            ?? candidates.max { shrink($0) < shrink($1) } ?? [groupRanges]
        let factor = shrink(chosen)
        cellWidth = cell * factor
        cellHeight = max(Self.minimumCellHeight, Self.baseCellHeight * scale * factor)
        spacing = space * factor
        groupSpacing = gap * factor
        separatorWidth = space * 1.5 * factor
        rowSpacing = space * 1.5
        fontSize = textSize.title2PointSize * factor
        rows = chosen
    }

    /// The width the rows take: the widest row.
    public var width: Double {
        rows.map { row in
            row.reduce(0) { $0 + Double($1.count) * cellWidth + Double(max(0, $1.count - 1)) * spacing }
                + Double(max(0, row.count - 1)) * groupSpacing
        }.max() ?? 0
    }

    /// The height the rows take.
    public var height: Double {
        Double(rows.count) * cellHeight + Double(max(0, rows.count - 1)) * rowSpacing
    }

    /// The index ranges of the groups; cells beyond the groups form one more group.
    private static func ranges(length: Int, groups: [Int]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        for size in groups where start < length {
            let end = min(length, start + max(1, size))
            result.append(start..<end)
            start = end
        }
        if start < length { result.append(start..<length) }
        return result
    }

    /// `length` cells in `count` rows, the first rows taking one more when they do not divide evenly.
    private static func balancedRows(length: Int, count: Int) -> [Range<Int>] {
        let count = min(max(1, count), max(1, length))
        var result: [Range<Int>] = []
        var start = 0
        for index in 0..<count {
            let size = length / count + (index < length % count ? 1 : 0)
            result.append(start..<(start + size))
            start += size
        }
        return result
    }
}
