// Fonts and text styles.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Bodies only hold enough to type-check; the module never runs.

import Foundation

// https://developer.apple.com/documentation/swiftui/font
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Font: Hashable, Sendable {
    private let name: String

    // https://developer.apple.com/documentation/swiftui/font/textstyle
    // The page also lists `extraLargeTitle` and `extraLargeTitle2` (visionOS styles); the project
    // neither uses them nor switches over the styles.
    public enum TextStyle: CaseIterable, Sendable, Hashable {
        // https://developer.apple.com/documentation/swiftui/font/textstyle/largetitle
        case largeTitle
        // https://developer.apple.com/documentation/swiftui/font/textstyle/title
        case title
        // https://developer.apple.com/documentation/swiftui/font/textstyle/title2
        case title2
        // https://developer.apple.com/documentation/swiftui/font/textstyle/title3
        case title3
        // https://developer.apple.com/documentation/swiftui/font/textstyle/headline
        case headline
        // https://developer.apple.com/documentation/swiftui/font/textstyle/subheadline
        case subheadline
        // https://developer.apple.com/documentation/swiftui/font/textstyle/body
        case body
        // https://developer.apple.com/documentation/swiftui/font/textstyle/callout
        case callout
        // https://developer.apple.com/documentation/swiftui/font/textstyle/footnote
        case footnote
        // https://developer.apple.com/documentation/swiftui/font/textstyle/caption
        case caption
        // https://developer.apple.com/documentation/swiftui/font/textstyle/caption2
        case caption2
    }

    // https://developer.apple.com/documentation/swiftui/font/weight
    public struct Weight: Hashable, Sendable {
        private let value: Double
        // https://developer.apple.com/documentation/swiftui/font/weight/regular
        public static let regular = Weight(value: 0)
        // https://developer.apple.com/documentation/swiftui/font/weight/medium
        public static let medium = Weight(value: 0.23)
        // https://developer.apple.com/documentation/swiftui/font/weight/semibold
        public static let semibold = Weight(value: 0.3)
        // https://developer.apple.com/documentation/swiftui/font/weight/bold
        public static let bold = Weight(value: 0.4)
    }

    // https://developer.apple.com/documentation/swiftui/font/design
    public enum Design: Hashable, Sendable {
        // https://developer.apple.com/documentation/swiftui/font/design/default
        case `default`
        // https://developer.apple.com/documentation/swiftui/font/design/serif
        @available(watchOS 7.0, *)
        case serif
        // https://developer.apple.com/documentation/swiftui/font/design/rounded
        case rounded
        // https://developer.apple.com/documentation/swiftui/font/design/monospaced
        case monospaced
    }

    // https://developer.apple.com/documentation/swiftui/font/system(_:design:weight:)
    @available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
    public static func system(
        _ style: Font.TextStyle, design: Font.Design? = nil, weight: Font.Weight? = nil
    ) -> Font {
        Font(name: "system")
    }

    // https://developer.apple.com/documentation/swiftui/font/weight(_:)
    public func weight(_ weight: Font.Weight) -> Font { self }

    // https://developer.apple.com/documentation/swiftui/font/monospaceddigit()
    public func monospacedDigit() -> Font { self }

    // https://developer.apple.com/documentation/swiftui/font/largetitle
    public static let largeTitle = Font(name: "largeTitle")
    // https://developer.apple.com/documentation/swiftui/font/title2
    public static let title2 = Font(name: "title2")
    // https://developer.apple.com/documentation/swiftui/font/headline
    public static let headline = Font(name: "headline")
    // https://developer.apple.com/documentation/swiftui/font/subheadline
    public static let subheadline = Font(name: "subheadline")
    // https://developer.apple.com/documentation/swiftui/font/body
    public static let body = Font(name: "body")
    // https://developer.apple.com/documentation/swiftui/font/footnote
    public static let footnote = Font(name: "footnote")
}
