// Alignment, edges and unit points used by layout modifiers.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Bodies only hold enough to type-check; the module never runs.

import Foundation

// https://developer.apple.com/documentation/swiftui/horizontalalignment
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct HorizontalAlignment: Equatable, Sendable {
    private let id: Int
    // https://developer.apple.com/documentation/swiftui/horizontalalignment/leading
    public static let leading = HorizontalAlignment(id: 0)
    // https://developer.apple.com/documentation/swiftui/horizontalalignment/center
    public static let center = HorizontalAlignment(id: 1)
    // https://developer.apple.com/documentation/swiftui/horizontalalignment/trailing
    public static let trailing = HorizontalAlignment(id: 2)
}

// https://developer.apple.com/documentation/swiftui/verticalalignment
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct VerticalAlignment: Equatable, Sendable {
    private let id: Int
    // https://developer.apple.com/documentation/swiftui/verticalalignment/top
    public static let top = VerticalAlignment(id: 0)
    // https://developer.apple.com/documentation/swiftui/verticalalignment/center
    public static let center = VerticalAlignment(id: 1)
    // https://developer.apple.com/documentation/swiftui/verticalalignment/bottom
    public static let bottom = VerticalAlignment(id: 2)
    // https://developer.apple.com/documentation/swiftui/verticalalignment/firsttextbaseline
    public static let firstTextBaseline = VerticalAlignment(id: 3)
}

// https://developer.apple.com/documentation/swiftui/alignment
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Alignment: Equatable, Sendable {
    // https://developer.apple.com/documentation/swiftui/alignment/horizontal
    public var horizontal: HorizontalAlignment
    // https://developer.apple.com/documentation/swiftui/alignment/vertical
    public var vertical: VerticalAlignment

    // https://developer.apple.com/documentation/swiftui/alignment/init(horizontal:vertical:)
    public init(horizontal: HorizontalAlignment, vertical: VerticalAlignment) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    // https://developer.apple.com/documentation/swiftui/alignment/center
    public static let center = Alignment(horizontal: .center, vertical: .center)
    // https://developer.apple.com/documentation/swiftui/alignment/top
    public static let top = Alignment(horizontal: .center, vertical: .top)
    // https://developer.apple.com/documentation/swiftui/alignment/bottom
    public static let bottom = Alignment(horizontal: .center, vertical: .bottom)
    // https://developer.apple.com/documentation/swiftui/alignment/leading
    public static let leading = Alignment(horizontal: .leading, vertical: .center)
    // https://developer.apple.com/documentation/swiftui/alignment/trailing
    public static let trailing = Alignment(horizontal: .trailing, vertical: .center)
}

// https://developer.apple.com/documentation/swiftui/edge
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public enum Edge: Int8, CaseIterable, Sendable {
    // https://developer.apple.com/documentation/swiftui/edge/top
    case top
    // https://developer.apple.com/documentation/swiftui/edge/leading
    case leading
    // https://developer.apple.com/documentation/swiftui/edge/bottom
    case bottom
    // https://developer.apple.com/documentation/swiftui/edge/trailing
    case trailing

    // https://developer.apple.com/documentation/swiftui/edge/set
    public struct Set: OptionSet, Sendable {
        // https://developer.apple.com/documentation/swiftui/edge/set/rawvalue
        public let rawValue: Int8
        // https://developer.apple.com/documentation/swiftui/edge/set/init(rawvalue:)
        public init(rawValue: Int8) { self.rawValue = rawValue }

        // https://developer.apple.com/documentation/swiftui/edge/set/top
        public static let top = Set(rawValue: 1)
        // https://developer.apple.com/documentation/swiftui/edge/set/leading
        public static let leading = Set(rawValue: 2)
        // https://developer.apple.com/documentation/swiftui/edge/set/bottom
        public static let bottom = Set(rawValue: 4)
        // https://developer.apple.com/documentation/swiftui/edge/set/trailing
        public static let trailing = Set(rawValue: 8)
        // https://developer.apple.com/documentation/swiftui/edge/set/all
        public static let all: Set = [.top, .leading, .bottom, .trailing]
        // https://developer.apple.com/documentation/swiftui/edge/set/horizontal
        public static let horizontal: Set = [.leading, .trailing]
        // https://developer.apple.com/documentation/swiftui/edge/set/vertical
        public static let vertical: Set = [.top, .bottom]
    }
}

// https://developer.apple.com/documentation/swiftui/unitpoint
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct UnitPoint: Hashable, Sendable {
    // https://developer.apple.com/documentation/swiftui/unitpoint/x
    public var x: CGFloat
    // https://developer.apple.com/documentation/swiftui/unitpoint/y
    public var y: CGFloat

    // https://developer.apple.com/documentation/swiftui/unitpoint/init(x:y:)
    public init(x: CGFloat, y: CGFloat) {
        self.x = x
        self.y = y
    }

    // https://developer.apple.com/documentation/swiftui/unitpoint/center
    public static let center = UnitPoint(x: 0.5, y: 0.5)
}

// https://developer.apple.com/documentation/swiftui/textalignment
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public enum TextAlignment: Hashable, CaseIterable, Sendable {
    // https://developer.apple.com/documentation/swiftui/textalignment/leading
    case leading
    // https://developer.apple.com/documentation/swiftui/textalignment/center
    case center
    // https://developer.apple.com/documentation/swiftui/textalignment/trailing
    case trailing
}
