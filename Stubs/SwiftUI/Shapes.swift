// Colours, shape styles and shapes.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Bodies only hold enough to type-check; the module never runs.

import Foundation

/// Declared as on <https://developer.apple.com/documentation/swiftui/shapestyle>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol ShapeStyle: Sendable {}

/// Declared as on <https://developer.apple.com/documentation/swiftui/color>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct Color: Hashable, CustomStringConvertible, Sendable, ShapeStyle, View {
    private let components: [Double]

    /// Declared as on <https://developer.apple.com/documentation/swiftui/color/rgbcolorspace>.
    public enum RGBColorSpace: Sendable, Hashable {
        /// Declared as on <https://developer.apple.com/documentation/swiftui/color/rgbcolorspace/srgb>.
        case sRGB
        /// Declared as on <https://developer.apple.com/documentation/swiftui/color/rgbcolorspace/srgblinear>.
        case sRGBLinear
        /// Declared as on <https://developer.apple.com/documentation/swiftui/color/rgbcolorspace/displayp3>.
        case displayP3
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/color/init(_:red:green:blue:opacity:)>.
    public init(
        _ colorSpace: Color.RGBColorSpace = .sRGB, red: Double, green: Double, blue: Double,
        opacity: Double = 1
    ) {
        components = [red, green, blue, opacity]
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/color/description>.
    public var description: String { "Color" }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/color/clear>.
    public static let clear = Color(.sRGB, red: 0, green: 0, blue: 0, opacity: 0)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/color/secondary>.
    public static let secondary = Color(.sRGB, red: 0.5, green: 0.5, blue: 0.5)

    public var body: EmptyView { EmptyView() }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/fillstyle>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct FillStyle: Equatable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/fillstyle/iseofilled>.
    public var isEOFilled: Bool
    /// Declared as on <https://developer.apple.com/documentation/swiftui/fillstyle/isantialiased>.
    public var isAntialiased: Bool

    /// Declared as on <https://developer.apple.com/documentation/swiftui/fillstyle/init(eofill:antialiased:)>.
    public init(eoFill: Bool = false, antialiased: Bool = true) {
        isEOFilled = eoFill
        isAntialiased = antialiased
    }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/path>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Path: Equatable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/path/init()>.
    public init() {}

    /// Declared as on <https://developer.apple.com/documentation/swiftui/path/init(roundedrect:cornerradius:style:)>.
    public init(roundedRect rect: CGRect, cornerRadius: CGFloat, style: RoundedCornerStyle = .continuous) {}

    /// Declared as on <https://developer.apple.com/documentation/swiftui/path/init(ellipsein:)>.
    public init(ellipseIn rect: CGRect) {}
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/animatable>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol Animatable {}

/// Declared as on <https://developer.apple.com/documentation/corefoundation/cgfloat>.
// "Conforms To: Animatable" (Relationships on the page, from SwiftUI).
extension CGFloat: Animatable {}

/// Declared as on <https://developer.apple.com/documentation/swift/double>.
// "Conforms To: Animatable" (Relationships on the page, from SwiftUI).
extension Double: Animatable {}

/// Declared as on <https://developer.apple.com/documentation/swiftui/shape>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol Shape: Sendable, Animatable, View {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/shape/path(in:)>.
    func path(in rect: CGRect) -> Path
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/insettableshape>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol InsettableShape: Shape {}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Shape {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/shape/fill(_:style:)>.
    nonisolated public func fill<S>(_ content: S, style: FillStyle = FillStyle()) -> some View
    where S: ShapeStyle {
        self
    }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension InsettableShape {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/insettableshape/strokeborder(_:linewidth:antialiased:)>.
    nonisolated public func strokeBorder<S>(
        _ content: S, lineWidth: CGFloat = 1, antialiased: Bool = true
    ) -> some View
    where S: ShapeStyle {
        self
    }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/roundedcornerstyle>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public enum RoundedCornerStyle: Equatable, Hashable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/roundedcornerstyle/circular>.
    case circular
    /// Declared as on <https://developer.apple.com/documentation/swiftui/roundedcornerstyle/continuous>.
    case continuous
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/roundedrectangle>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct RoundedRectangle: InsettableShape {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/roundedrectangle/cornersize>.
    public var cornerSize: CGSize
    /// Declared as on <https://developer.apple.com/documentation/swiftui/roundedrectangle/style>.
    public var style: RoundedCornerStyle

    /// Declared as on <https://developer.apple.com/documentation/swiftui/roundedrectangle/init(cornerradius:style:)>.
    public init(cornerRadius: CGFloat, style: RoundedCornerStyle = .continuous) {
        cornerSize = CGSize(width: cornerRadius, height: cornerRadius)
        self.style = style
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/roundedrectangle/path(in:)>.
    public func path(in rect: CGRect) -> Path {
        Path(roundedRect: rect, cornerRadius: cornerSize.width, style: style)
    }

    public var body: EmptyView { EmptyView() }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/circle>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Circle: InsettableShape {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/circle/init()>.
    public init() {}

    /// Declared as on <https://developer.apple.com/documentation/swiftui/circle/path(in:)>.
    public func path(in rect: CGRect) -> Path { Path(ellipseIn: rect) }

    public var body: EmptyView { EmptyView() }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/capsule>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Capsule: InsettableShape {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/capsule/style>.
    public var style: RoundedCornerStyle

    /// Declared as on <https://developer.apple.com/documentation/swiftui/capsule/init(style:)>.
    public init(style: RoundedCornerStyle = .continuous) { self.style = style }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/capsule/path(in:)>.
    public func path(in rect: CGRect) -> Path {
        Path(roundedRect: rect, cornerRadius: rect.height / 2, style: style)
    }

    public var body: EmptyView { EmptyView() }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/rectangle>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Rectangle: InsettableShape {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/rectangle/init()>.
    public init() {}

    /// Declared as on <https://developer.apple.com/documentation/swiftui/rectangle/path(in:)>.
    public func path(in rect: CGRect) -> Path { Path(roundedRect: rect, cornerRadius: 0) }

    public var body: EmptyView { EmptyView() }
}
