// Controls, their events, and the closure-based actions they run.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Bodies only hold enough to type-check: the module is never run.

/// Declared as on <https://developer.apple.com/documentation/uikit/uicontrol>.
// `@MainActor class UIControl`, a subclass of `UIView`.
@available(iOS 2.0, *)
@MainActor open class UIControl: UIView {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uicontrol/event>.
    // `struct Event`, the control events option set (`UInt` bits).
    public struct Event: OptionSet, Hashable, Sendable {
        /// The events' bits.
        public let rawValue: UInt

        /// Creates events from their bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// Declared as on <https://developer.apple.com/documentation/uikit/uicontrol/event/editingchanged>.
        public static var editingChanged: UIControl.Event { UIControl.Event(rawValue: 1 << 17) }
    }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uicontrol/addaction(_:for:)>.
    @available(iOS 14.0, tvOS 14.0, *)
    open func addAction(_ action: UIAction, for controlEvents: UIControl.Event) {}
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uiimage>.
// The page shows `class UIImage` (not main-actor isolated); its superclass is `NSObject`. The stub
// declares no members: the project only passes `nil` where an image is optional.
@available(iOS 2.0, *)
open class UIImage: NSObject {}

/// Declared as on <https://developer.apple.com/documentation/uikit/uimenuelement>.
// `@MainActor class UIMenuElement`; the stub declares it to hold `Attributes` and `State`.
@available(iOS 13.0, tvOS 13.0, *)
@MainActor open class UIMenuElement: NSObject {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uimenuelement/attributes>.
    // `struct Attributes`, an option set (`UInt` bits); the stub declares no attributes.
    @available(iOS 13.0, tvOS 13.0, *)
    public struct Attributes: OptionSet, Hashable, Sendable {
        /// The attributes' bits.
        public let rawValue: UInt

        /// Declared as on <https://developer.apple.com/documentation/uikit/uimenuelement/attributes/init(rawvalue:)>.
        public init(rawValue: UInt) { self.rawValue = rawValue }
    }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uimenuelement/state>.
    // `enum State` (`Int` raw values).
    @available(iOS 13.0, tvOS 13.0, *)
    public enum State: Int, Hashable, Sendable {
        /// Declared as on <https://developer.apple.com/documentation/uikit/uimenuelement/state/off>.
        case off = 0
        /// Declared as on <https://developer.apple.com/documentation/uikit/uimenuelement/state/on>.
        case on = 1
        /// Declared as on <https://developer.apple.com/documentation/uikit/uimenuelement/state/mixed>.
        case mixed = 2
    }
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uiactionhandler>.
// The page shows `typealias UIActionHandler = (UIAction) -> Void`: neither `@Sendable` nor isolated.
public typealias UIActionHandler = (UIAction) -> Void

/// Declared as on <https://developer.apple.com/documentation/uikit/uiaction>.
// `@MainActor class UIAction`, a subclass of `UIMenuElement`.
@available(iOS 13.0, tvOS 13.0, *)
@MainActor open class UIAction: UIMenuElement {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uiaction/identifier-swift.struct>.
    // `struct Identifier`, a typed `String` constant.
    @available(iOS 13.0, tvOS 13.0, *)
    public struct Identifier: RawRepresentable, Hashable, Sendable {
        /// The identifier's string.
        public var rawValue: String

        /// Declared as on <https://developer.apple.com/documentation/uikit/uiaction/identifier-swift.struct/init(rawvalue:)>.
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uiaction/init(title:image:identifier:discoverabilitytitle:attributes:state:handler:)>.
    @available(iOS 13.0, tvOS 14.0, *)
    @MainActor @preconcurrency public convenience init(
        title: String = "", image: UIImage? = nil, identifier: UIAction.Identifier? = nil,
        discoverabilityTitle: String? = nil, attributes: UIMenuElement.Attributes = [],
        state: UIMenuElement.State = .off, handler: @escaping UIActionHandler
    ) {
        self.init()
    }
}
