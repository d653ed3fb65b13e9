// Fonts and text styles.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Bodies only hold enough to type-check; the module never runs.

import Foundation

/// Declared as on <https://developer.apple.com/documentation/swiftui/font>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Font: Hashable, Sendable {
    private let name: String

    /// Declared as on <https://developer.apple.com/documentation/swiftui/font/textstyle>.
    // The page also lists `extraLargeTitle` and `extraLargeTitle2` (visionOS styles); the project
    // neither uses them nor switches over the styles.
    public enum TextStyle: CaseIterable, Sendable, Hashable {
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/textstyle/largetitle>.
        case largeTitle
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/textstyle/title>.
        case title
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/textstyle/title2>.
        case title2
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/textstyle/title3>.
        case title3
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/textstyle/headline>.
        case headline
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/textstyle/subheadline>.
        case subheadline
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/textstyle/body>.
        case body
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/textstyle/callout>.
        case callout
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/textstyle/footnote>.
        case footnote
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/textstyle/caption>.
        case caption
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/textstyle/caption2>.
        case caption2
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/font/weight>.
    public struct Weight: Hashable, Sendable {
        private let value: Double
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/weight/regular>.
        public static let regular = Weight(value: 0)
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/weight/medium>.
        public static let medium = Weight(value: 0.23)
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/weight/semibold>.
        public static let semibold = Weight(value: 0.3)
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/weight/bold>.
        public static let bold = Weight(value: 0.4)
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/font/design>.
    public enum Design: Hashable, Sendable {
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/design/default>.
        case `default`
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/design/serif>.
        @available(watchOS 7.0, *)
        case serif
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/design/rounded>.
        case rounded
        /// Declared as on <https://developer.apple.com/documentation/swiftui/font/design/monospaced>.
        case monospaced
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/font/system(_:design:weight:)>.
    @available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
    public static func system(
        _ style: Font.TextStyle, design: Font.Design? = nil, weight: Font.Weight? = nil
    ) -> Font {
        Font(name: "system")
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/font/system(size:weight:design:)-697b2>.
    // (the iOS 16 overload with optional `weight` and `design`; the iOS 13 overload,
    // .../font/system(size:weight:design:)-73a88, is not declared)
    @available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
    public static func system(size: CGFloat, weight: Font.Weight? = nil, design: Font.Design? = nil) -> Font {
        Font(name: "system")
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/font/weight(_:)>.
    public func weight(_ weight: Font.Weight) -> Font { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/font/monospaceddigit()>.
    public func monospacedDigit() -> Font { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/font/largetitle>.
    public static let largeTitle = Font(name: "largeTitle")
    /// Declared as on <https://developer.apple.com/documentation/swiftui/font/title2>.
    public static let title2 = Font(name: "title2")
    /// Declared as on <https://developer.apple.com/documentation/swiftui/font/headline>.
    public static let headline = Font(name: "headline")
    /// Declared as on <https://developer.apple.com/documentation/swiftui/font/subheadline>.
    public static let subheadline = Font(name: "subheadline")
    /// Declared as on <https://developer.apple.com/documentation/swiftui/font/body>.
    public static let body = Font(name: "body")
    /// Declared as on <https://developer.apple.com/documentation/swiftui/font/footnote>.
    public static let footnote = Font(name: "footnote")
}
