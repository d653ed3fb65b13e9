// Alignment, edges and unit points used by layout modifiers.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Bodies only hold enough to type-check; the module never runs.

import Foundation

/// Declared as on <https://developer.apple.com/documentation/swiftui/horizontalalignment>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct HorizontalAlignment: Equatable, Sendable {
    private let id: Int
    /// Declared as on <https://developer.apple.com/documentation/swiftui/horizontalalignment/leading>.
    public static let leading = HorizontalAlignment(id: 0)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/horizontalalignment/center>.
    public static let center = HorizontalAlignment(id: 1)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/horizontalalignment/trailing>.
    public static let trailing = HorizontalAlignment(id: 2)
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/verticalalignment>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct VerticalAlignment: Equatable, Sendable {
    private let id: Int
    /// Declared as on <https://developer.apple.com/documentation/swiftui/verticalalignment/top>.
    public static let top = VerticalAlignment(id: 0)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/verticalalignment/center>.
    public static let center = VerticalAlignment(id: 1)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/verticalalignment/bottom>.
    public static let bottom = VerticalAlignment(id: 2)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/verticalalignment/firsttextbaseline>.
    public static let firstTextBaseline = VerticalAlignment(id: 3)
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/alignment>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Alignment: Equatable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/alignment/horizontal>.
    public var horizontal: HorizontalAlignment
    /// Declared as on <https://developer.apple.com/documentation/swiftui/alignment/vertical>.
    public var vertical: VerticalAlignment

    /// Declared as on <https://developer.apple.com/documentation/swiftui/alignment/init(horizontal:vertical:)>.
    public init(horizontal: HorizontalAlignment, vertical: VerticalAlignment) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/alignment/center>.
    public static let center = Alignment(horizontal: .center, vertical: .center)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/alignment/top>.
    public static let top = Alignment(horizontal: .center, vertical: .top)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/alignment/bottom>.
    public static let bottom = Alignment(horizontal: .center, vertical: .bottom)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/alignment/leading>.
    public static let leading = Alignment(horizontal: .leading, vertical: .center)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/alignment/trailing>.
    public static let trailing = Alignment(horizontal: .trailing, vertical: .center)
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/edge>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public enum Edge: Int8, CaseIterable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/edge/top>.
    case top
    /// Declared as on <https://developer.apple.com/documentation/swiftui/edge/leading>.
    case leading
    /// Declared as on <https://developer.apple.com/documentation/swiftui/edge/bottom>.
    case bottom
    /// Declared as on <https://developer.apple.com/documentation/swiftui/edge/trailing>.
    case trailing

    /// Declared as on <https://developer.apple.com/documentation/swiftui/edge/set>.
    public struct Set: OptionSet, Sendable {
        /// Declared as on <https://developer.apple.com/documentation/swiftui/edge/set/rawvalue>.
        public let rawValue: Int8
        /// Declared as on <https://developer.apple.com/documentation/swiftui/edge/set/init(rawvalue:)>.
        public init(rawValue: Int8) { self.rawValue = rawValue }

        /// Declared as on <https://developer.apple.com/documentation/swiftui/edge/set/top>.
        public static let top = Set(rawValue: 1)
        /// Declared as on <https://developer.apple.com/documentation/swiftui/edge/set/leading>.
        public static let leading = Set(rawValue: 2)
        /// Declared as on <https://developer.apple.com/documentation/swiftui/edge/set/bottom>.
        public static let bottom = Set(rawValue: 4)
        /// Declared as on <https://developer.apple.com/documentation/swiftui/edge/set/trailing>.
        public static let trailing = Set(rawValue: 8)
        /// Declared as on <https://developer.apple.com/documentation/swiftui/edge/set/all>.
        public static let all: Set = [.top, .leading, .bottom, .trailing]
        /// Declared as on <https://developer.apple.com/documentation/swiftui/edge/set/horizontal>.
        public static let horizontal: Set = [.leading, .trailing]
        /// Declared as on <https://developer.apple.com/documentation/swiftui/edge/set/vertical>.
        public static let vertical: Set = [.top, .bottom]
    }
}

// `@frozen enum VerticalEdge`: `CaseIterable`, `Codable`, `Hashable`, `RawRepresentable`, `Sendable`
// (Relationships on the page); the raw type is `Int8`, as `Edge`'s.
/// Declared as on <https://developer.apple.com/documentation/swiftui/verticaledge>.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
public enum VerticalEdge: Int8, CaseIterable, Codable, Hashable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/verticaledge/top>.
    case top
    /// Declared as on <https://developer.apple.com/documentation/swiftui/verticaledge/bottom>.
    case bottom
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/unitpoint>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct UnitPoint: Hashable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/unitpoint/x>.
    public var x: CGFloat
    /// Declared as on <https://developer.apple.com/documentation/swiftui/unitpoint/y>.
    public var y: CGFloat

    /// Declared as on <https://developer.apple.com/documentation/swiftui/unitpoint/init(x:y:)>.
    public init(x: CGFloat, y: CGFloat) {
        self.x = x
        self.y = y
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/unitpoint/center>.
    public static let center = UnitPoint(x: 0.5, y: 0.5)
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/textalignment>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public enum TextAlignment: Hashable, CaseIterable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/textalignment/leading>.
    case leading
    /// Declared as on <https://developer.apple.com/documentation/swiftui/textalignment/center>.
    case center
    /// Declared as on <https://developer.apple.com/documentation/swiftui/textalignment/trailing>.
    case trailing
}
