// The keyboard's language (UITextInputMode, to tell a composing keyboard), and presses on a
// physical keyboard: the left and right arrows move the code's selection (UX F11),
// read as in Apple's article "Handling key presses made on a physical keyboard"
// (https://developer.apple.com/documentation/uikit/handling-key-presses-made-on-a-physical-keyboard):
// `pressesBegan(_:with:)`, each press's `key`, its `charactersIgnoringModifiers` compared with
// `UIKeyCommand.inputLeftArrow`.
//
// Declarations follow the Apple documentation page cited above each one (see README.md).

/// Declared as on <https://developer.apple.com/documentation/uikit/uievent>.
@available(iOS 2.0, *)
@MainActor open class UIEvent: NSObject {}

/// Declared as on <https://developer.apple.com/documentation/uikit/uipressesevent>.
@available(iOS 9.0, *)
@MainActor open class UIPressesEvent: UIEvent {}

/// Declared as on <https://developer.apple.com/documentation/uikit/uipress>.
@available(iOS 9.0, *)
@MainActor open class UIPress: NSObject {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uipress/key>.
    @available(iOS 13.4, *)
    open var key: UIKey? { nil }
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uikey>.
@available(iOS 13.4, *)
@MainActor open class UIKey: NSObject {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uikey/charactersignoringmodifiers>.
    open var charactersIgnoringModifiers: String { "" }
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uikeycommand>.
///
/// Only the input constants are used; the class's superclass (`UICommand`) is left out.
@available(iOS 7.0, *)
@MainActor open class UIKeyCommand: NSObject {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uikeycommand/inputleftarrow>.
    ///
    /// The page shows `nonisolated class let inputLeftArrow: String`; Swift source spells a
    /// stored class constant `static let`.
    nonisolated public static let inputLeftArrow = "UIKeyInputLeftArrow"

    /// Declared as on <https://developer.apple.com/documentation/uikit/uikeycommand/inputrightarrow>.
    ///
    /// The page shows `nonisolated class let inputRightArrow: String`.
    nonisolated public static let inputRightArrow = "UIKeyInputRightArrow"
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uitextinputmode>.
@available(iOS 4.2, *)
@MainActor open class UITextInputMode: NSObject {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextinputmode/primarylanguage>.
    open var primaryLanguage: String? { nil }
}
