// Hardware-keyboard presses, scrolling and progress: the arrow keys that move the code's
// selection (UX F11), the screen that scrolls at large text sizes and lets the keyboard go
// (V14), and the progress shown while the first code is sent (V11).
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Bodies only hold enough to type-check; the module never runs.

import Foundation

/// Declared as on <https://developer.apple.com/documentation/swiftui/keyequivalent>.
///
/// The page shows `struct KeyEquivalent`; its `character` initializer is not used here.
@available(iOS 14.0, macOS 11.0, tvOS 17.0, *)
public struct KeyEquivalent: Hashable, Sendable {
    private let unit: UInt32

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyequivalent/leftarrow>.
    public static let leftArrow = KeyEquivalent(unit: 0xF702)

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyequivalent/rightarrow>.
    public static let rightArrow = KeyEquivalent(unit: 0xF703)
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/keypress>.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, *)
public struct KeyPress {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/keypress/key>.
    public let key: KeyEquivalent

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keypress/characters>.
    public let characters: String

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keypress/phases>.
    public struct Phases: OptionSet, Sendable {
        /// The raw value.
        public let rawValue: Int
        /// Creates a value from its raw value.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Declared as on <https://developer.apple.com/documentation/swiftui/keypress/phases/down>.
        public static let down = Phases(rawValue: 1)
        /// Declared as on <https://developer.apple.com/documentation/swiftui/keypress/phases/repeat>.
        public static let `repeat` = Phases(rawValue: 2)
        /// Declared as on <https://developer.apple.com/documentation/swiftui/keypress/phases/up>.
        public static let up = Phases(rawValue: 4)
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keypress/result>.
    ///
    /// The page shows `enum Result`, `Hashable` and `Sendable`.
    public enum Result: Hashable, Sendable {
        /// Declared as on <https://developer.apple.com/documentation/swiftui/keypress/result/handled>.
        case handled
        /// Declared as on <https://developer.apple.com/documentation/swiftui/keypress/result/ignored>.
        case ignored
    }
}

@available(iOS 17.0, macOS 14.0, tvOS 17.0, *)
extension View {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/onkeypress(_:action:)>.
    nonisolated public func onKeyPress(
        _ key: KeyEquivalent, action: @escaping () -> KeyPress.Result
    )
        -> some View
    { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/onkeypress(phases:action:)>.
    nonisolated public func onKeyPress(
        phases: KeyPress.Phases = [.down, .repeat], action: @escaping (KeyPress) -> KeyPress.Result
    ) -> some View { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/focusable(_:)>.
    nonisolated public func focusable(_ isFocusable: Bool = true) -> some View { self }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/axis>.
///
/// Only `Axis.Set`, the scroll view's first argument, is used.
public enum Axis: Int8, CaseIterable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/axis/horizontal>.
    case horizontal
    /// Declared as on <https://developer.apple.com/documentation/swiftui/axis/vertical>.
    case vertical

    /// Declared as on <https://developer.apple.com/documentation/swiftui/axis/set>.
    public struct Set: OptionSet, Sendable {
        /// The raw value.
        public let rawValue: Int8
        /// Creates a value from its raw value.
        public init(rawValue: Int8) { self.rawValue = rawValue }
        /// Declared as on <https://developer.apple.com/documentation/swiftui/axis/set/horizontal>.
        public static let horizontal = Set(rawValue: 1)
        /// Declared as on <https://developer.apple.com/documentation/swiftui/axis/set/vertical>.
        public static let vertical = Set(rawValue: 2)
    }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/scrollview>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct ScrollView<Content>: View where Content: View {
    private let content: Content

    /// Declared as on <https://developer.apple.com/documentation/swiftui/scrollview/init(_:showsindicators:content:)>.
    ///
    /// The page shows `@ContentBuilder` (Xcode 27); the iOS 17 SDK spells it `@ViewBuilder`.
    nonisolated public init(
        _ axes: Axis.Set = .vertical, showsIndicators: Bool = true, @ViewBuilder content: () -> Content
    ) {
        self.content = content()
    }

    /// The content and behavior of the view.
    public var body: EmptyView { EmptyView() }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/scrolldismisseskeyboardmode>.
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
public struct ScrollDismissesKeyboardMode: Sendable {
    private let id: Int

    /// Declared as on <https://developer.apple.com/documentation/swiftui/scrolldismisseskeyboardmode/interactively>.
    public static var interactively: ScrollDismissesKeyboardMode { ScrollDismissesKeyboardMode(id: 2) }
}

@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
extension View {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/scrolldismisseskeyboard(_:)>.
    nonisolated public func scrollDismissesKeyboard(_ mode: ScrollDismissesKeyboardMode) -> some View { self }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/progressview>.
///
/// The page shows `struct ProgressView<Label, CurrentValueLabel> where Label : View,
/// CurrentValueLabel : View`.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
nonisolated public struct ProgressView<Label, CurrentValueLabel>: View
where Label: View, CurrentValueLabel: View {
    /// The content and behavior of the view.
    public var body: EmptyView { EmptyView() }
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
extension ProgressView where CurrentValueLabel == EmptyView {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/progressview/init()>.
    nonisolated public init() where Label == EmptyView {}
}
