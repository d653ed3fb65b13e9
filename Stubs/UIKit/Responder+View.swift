// Responders, views, windows, colours and the layout and accessibility values views take.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Classes derive from Foundation's `NSObject` as UIKit's do; bodies
// only hold enough to type-check: the module is never linked or run.

// On Apple platforms `import UIKit` also brings Foundation's types (`CGRect`, `NSRange`,
// `NSObject`) into scope; the stub does the same.
@_exported import Foundation

/// Declared as on <https://developer.apple.com/documentation/uikit/uiresponder>.
///
/// The page shows `@MainActor class UIResponder`; its superclass is `NSObject`.
@available(iOS 2.0, *)
@MainActor open class UIResponder: NSObject {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uiresponder/isfirstresponder>.
    @available(iOS 2.0, *)
    open var isFirstResponder: Bool { false }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uiresponder/becomefirstresponder()>.
    ///
    /// `@discardableResult`: the importer marks every Objective-C method so (see README.md).
    @available(iOS 2.0, *)
    @discardableResult open func becomeFirstResponder() -> Bool { false }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uiresponder/resignfirstresponder()>.
    ///
    /// `@discardableResult`: the importer marks every Objective-C method so (see README.md).
    @available(iOS 2.0, *)
    @discardableResult open func resignFirstResponder() -> Bool { true }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uiresponder/textinputmode>.
    @available(iOS 7.0, *)
    open var textInputMode: UITextInputMode? { nil }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uiresponder/pressesbegan(_:with:)>.
    @available(iOS 9.0, *)
    open func pressesBegan(_ presses: Set<UIPress>, with event: UIPressesEvent?) {}
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uiview>.
///
/// `@MainActor class UIView`, a subclass of `UIResponder`.
@available(iOS 2.0, *)
@MainActor open class UIView: UIResponder {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uiview/init(frame:)>.
    @available(iOS 2.0, *)
    public init(frame: CGRect) { super.init() }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uiview/init(coder:)>.
    ///
    /// The stored documentation has no copy of this page. UIView adopts `NSCoding`, so its
    /// `init?(coder:)` is `required`: a subclass that declares its own designated initializer must
    /// also implement it, as on iOS. The form is NSView's
    /// (https://developer.apple.com/documentation/appkit/nsview/init(coder:)): `init?(coder: NSCoder)`.
    public required init?(coder: NSCoder) { nil }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uiwindow/init()>.
    ///
    /// `UITextField()` and the like: the importer gives every UIView subclass NSObject's `init()`
    /// as a convenience initializer. The stored documentation shows it only on UIWindow's page
    /// (`convenience init()`); UIView's own page for it is not stored.
    public convenience override init() { self.init(frame: .zero) }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uiview/window>.
    open var window: UIWindow? { nil }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uiview/didmovetowindow()>.
    open func didMoveToWindow() {}

    /// Declared as on <https://developer.apple.com/documentation/uikit/uiview/tintcolor>.
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    @available(iOS 7.0, *)
    open var tintColor: UIColor! = nil

    /// Declared as on <https://developer.apple.com/documentation/objectivec/nsobject-swift.class/isaccessibilityelement>.
    ///
    /// UIKit declares the accessibility properties on `NSObject` (the UIAccessibility informal
    /// protocol); the stub declares the ones the project uses on UIView, where views use them. The
    /// stored documentation has no copy of the NSObject pages; the declaration is the one on
    /// https://developer.apple.com/documentation/uikit/uiaccessibilityelement/isaccessibilityelement.
    open var isAccessibilityElement: Bool = false

    /// Declared as on <https://developer.apple.com/documentation/objectivec/nsobject-swift.class/accessibilitylabel>.
    ///
    /// As `isAccessibilityElement`; the declaration is the one on
    /// https://developer.apple.com/documentation/uikit/uiaccessibilityelement/accessibilitylabel.
    open var accessibilityLabel: String?

    /// Declared as on <https://developer.apple.com/documentation/objectivec/nsobject-swift.class/accessibilityvalue>.
    ///
    /// As `isAccessibilityElement`; the declaration is the one on
    /// https://developer.apple.com/documentation/uikit/uiaccessibilityelement/accessibilityvalue.
    open var accessibilityValue: String?

    /// Declared as on <https://developer.apple.com/documentation/objectivec/nsobject-swift.class/accessibilitytraits>.
    ///
    /// As `isAccessibilityElement`; the declaration is the one on
    /// https://developer.apple.com/documentation/uikit/uiaccessibilityelement/accessibilitytraits.
    open var accessibilityTraits: UIAccessibilityTraits = .none

    /// Declared as on <https://developer.apple.com/documentation/uikit/uiview/setcontenthuggingpriority(_:for:)>.
    @available(iOS 6.0, *)
    open func setContentHuggingPriority(_ priority: UILayoutPriority, for axis: NSLayoutConstraint.Axis) {}

    /// Declared as on <https://developer.apple.com/documentation/uikit/uiview/setcontentcompressionresistancepriority(_:for:)>.
    @available(iOS 6.0, *)
    open func setContentCompressionResistancePriority(
        _ priority: UILayoutPriority, for axis: NSLayoutConstraint.Axis
    ) {}
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uiwindow>.
///
/// `@MainActor class UIWindow`, a subclass of `UIView`.
@available(iOS 2.0, *)
@MainActor open class UIWindow: UIView {}

/// Declared as on <https://developer.apple.com/documentation/uikit/uicolor>.
///
/// The page shows `class UIColor` (not main-actor isolated); its superclass is `NSObject`.
@available(iOS 2.0, *)
open class UIColor: NSObject {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uicolor/clear>.
    @available(iOS 2.0, *)
    open class var clear: UIColor { UIColor() }
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uilayoutpriority>.
///
/// `struct UILayoutPriority`, a typed `Float` constant: `RawRepresentable`, `Hashable`, `Sendable`.
public struct UILayoutPriority: RawRepresentable, Hashable, Sendable {
    /// The priority's value.
    public var rawValue: Float

    /// Declared as on <https://developer.apple.com/documentation/uikit/uilayoutpriority/init(rawvalue:)>.
    public init(rawValue: Float) { self.rawValue = rawValue }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uilayoutpriority/init(_:)>.
    public init(_ rawValue: Float) { self.rawValue = rawValue }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uilayoutpriority/defaultlow>.
    @available(iOS 6.0, *)
    public static var defaultLow: UILayoutPriority { UILayoutPriority(250) }
}

/// Declared as on <https://developer.apple.com/documentation/uikit/nslayoutconstraint>.
///
/// `@MainActor class NSLayoutConstraint`; the stub declares it only to hold `Axis`.
@available(iOS 6.0, *)
@MainActor open class NSLayoutConstraint: NSObject {
    /// Declared as on <https://developer.apple.com/documentation/uikit/nslayoutconstraint/axis>.
    ///
    /// `enum Axis`: `RawRepresentable` (`Int`), `Hashable`, `Sendable` (Relationships on the page).
    public enum Axis: Int, Hashable, Sendable {
        /// Declared as on <https://developer.apple.com/documentation/uikit/nslayoutconstraint/axis/horizontal>.
        case horizontal = 0
        /// Declared as on <https://developer.apple.com/documentation/uikit/nslayoutconstraint/axis/vertical>.
        case vertical = 1
    }
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uiaccessibilitytraits>.
///
/// `struct UIAccessibilityTraits`, an option set over `UInt64` values.
public struct UIAccessibilityTraits: OptionSet, Hashable, Sendable {
    /// The traits' bits.
    public let rawValue: UInt64

    /// Creates traits from their bits.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uiaccessibilitytraits/none>.
    nonisolated public static let none = UIAccessibilityTraits([])
}
