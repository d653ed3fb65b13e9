import Testing

@testable import OTPCore

@Suite struct CodeLayoutTests {
    static let widths: [Double] =
        (Array(stride(from: 320.0, through: 1024.0, by: 8)) + [375, 390, 393, 402, 430, 440]).sorted()

    @Test(
        "F2: never wider than the width, never a cell under 44 pt, groups wrap before the digits shrink past 70 %",
        arguments: Array(CodeFormat.minimumLength...CodeFormat.maximumLength))
    func table(length: Int) {
        for kind in [CodeFormat.Kind.digits, .alphanumeric] {
            let format = CodeFormat(length: length, kind: kind)
            for size in TextSize.allCases {
                var previousRows = Int.max
                for width in Self.widths {
                    let layout = CodeLayout(width: width, format: format, textSize: size)
                    let label = "\(length) \(kind) \(size) \(width) pt"
                    #expect(layout.width <= width + 0.0001, "\(label): \(layout.width) pt wide")
                    #expect(layout.cellHeight >= 44, "\(label)")
                    #expect(
                        layout.fontSize >= size.title2PointSize * CodeLayout.minimumShrink - 0.0001,
                        "\(label)")
                    #expect(layout.fontSize <= size.title2PointSize + 0.0001, "\(label)")
                    #expect(layout.cellWidth >= layout.fontSize, "\(label): a digit fits its cell")
                    let cells = layout.rows.flatMap { $0.flatMap { Array($0) } }
                    #expect(cells == Array(0..<length), "\(label): every cell once, in order")
                    #expect(layout.rows.count <= previousRows, "\(label): a wider space never adds rows")
                    previousRows = layout.rows.count
                }
            }
        }
    }

    @Test("at the default size a 6-digit code is one row of 3 + 3 on every iPhone width")
    func defaultSix() {
        for width: Double in [272, 327, 345, 382] {
            let layout = CodeLayout(width: width, format: .default, textSize: .large)
            #expect(layout.rows == [[0..<3, 3..<6]])
        }
        let roomy = CodeLayout(width: 600, format: .default, textSize: .large)
        #expect(roomy.cellWidth == 44 && roomy.cellHeight == 54 && roomy.fontSize == 22)
    }

    @Test("an 8-digit code shrinks a little on a 375 pt iPhone at the default size, and keeps one row")
    func eightAtDefault() {
        let layout = CodeLayout(width: 375 - 48, format: CodeFormat(length: 8), textSize: .large)
        #expect(layout.rows == [[0..<4, 4..<8]])
        #expect(layout.cellWidth < 44)
        #expect(layout.width <= 327)
    }

    @Test("with larger text the groups wrap onto rows of their own, then into shorter rows")
    func wrapping() {
        let xxLarge = CodeLayout(width: 327, format: .default, textSize: .accessibility1)
        #expect(xxLarge.rows == [[0..<3], [3..<6]])
        let ax5 = CodeLayout(width: 272, format: CodeFormat(length: 8), textSize: .accessibility5)
        #expect(ax5.rows.count > 2)
        #expect(ax5.rows.allSatisfy { $0.count == 1 })
        let five = CodeLayout(width: 272, format: CodeFormat(length: 5), textSize: .accessibility3)
        #expect(five.rows.count == 2, "one group of five splits into 3 + 2")
        #expect(five.rows.map { $0[0].count } == [3, 2])
    }

    @Test("a width not yet measured gives the natural one-row layout")
    func unmeasured() {
        let layout = CodeLayout(width: 0, format: .default, textSize: .xxxLarge)
        #expect(layout.rows.count == 1)
        #expect(layout.fontSize == 28)
        #expect(layout.height == layout.cellHeight)
    }

    @Test("text sizes follow Apple's Title 2 sizes, from 19 to 56 pt")
    func sizes() {
        #expect(TextSize.allCases.map(\.title2PointSize) == [19, 20, 21, 22, 24, 26, 28, 34, 39, 44, 50, 56])
        #expect(TextSize.large.scale == 1)
        #expect(TextSize.accessibility1.isAccessibilitySize && !TextSize.xxxLarge.isAccessibilitySize)
    }
}

@Suite struct LargeTextLayoutTests {
    @Test("V14: above the default size every step grows the digits on a 375 pt iPhone, wrapping if it must")
    func digitsGrowWithTextSize() {
        for width: Double in [375 - 48, 375, 320 - 32] {
            for length in [6, 8] {
                let sizes = TextSize.allCases.filter { $0 >= .large }
                let fonts = sizes.map {
                    CodeLayout(width: width, format: CodeFormat(length: length), textSize: $0).fontSize
                }
                for index in fonts.indices.dropFirst() {
                    let step = sizes[index].title2PointSize - sizes[index - 1].title2PointSize
                    #expect(
                        fonts[index] - fonts[index - 1] >= step / 4 - 0.000_1,
                        "\(length) digits in \(width) pt: \(fonts)")
                }
            }
        }
    }

    @Test("V14: at xLarge a 6-digit code on a 327 pt column wraps its groups rather than keep 21 pt digits")
    func xLargeWraps() {
        let layout = CodeLayout(width: 327, format: .default, textSize: .xLarge)
        #expect(layout.fontSize == 24)
        #expect(layout.rows == [[0..<3], [3..<6]])
    }
}
