// The text field, its delegate, text positions and ranges, and the text input traits.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Bodies only hold enough to type-check: the module is never run.

/// Declared as on <https://developer.apple.com/documentation/uikit/uitextposition>.
// `@MainActor class UITextPosition`; its superclass is `NSObject`.
@available(iOS 3.2, *)
@MainActor open class UITextPosition: NSObject {}

/// Declared as on <https://developer.apple.com/documentation/uikit/uitextrange>.
// `@MainActor class UITextRange`; its superclass is `NSObject`.
@available(iOS 3.2, *)
@MainActor open class UITextRange: NSObject {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextrange/start>.
    @available(iOS 3.2, *)
    open var start: UITextPosition { UITextPosition() }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextrange/end>.
    @available(iOS 3.2, *)
    open var end: UITextPosition { UITextPosition() }
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uitextfield>.
// `@MainActor class UITextField`, a subclass of `UIControl` that adopts `UITextInput` (and through
// it `UIKeyInput` and `UITextInputTraits`). The importer mirrors the protocols' properties and
// methods onto the class, so the stub declares the ones the project uses on UITextField itself,
// each citing the protocol's page.
@available(iOS 2.0, *)
@MainActor open class UITextField: UIControl {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextfield/text>.
    @available(iOS 2.0, *)
    open var text: String?

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextfield/delegate>.
    @available(iOS 2.0, *)
    weak open var delegate: (any UITextFieldDelegate)?

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextfield/textcolor>.
    @available(iOS 2.0, *)
    open var textColor: UIColor?

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextinputtraits/keyboardtype>.
    // An optional requirement of UITextInputTraits, mirrored onto the class (see above).
    open var keyboardType: UIKeyboardType = .default

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextinputtraits/textcontenttype>.
    // An optional requirement of UITextInputTraits (`UITextContentType!`), mirrored onto the class.
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    @available(iOS 10.0, tvOS 10.0, *)
    open var textContentType: UITextContentType! = nil

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextinputtraits/autocorrectiontype>.
    // An optional requirement of UITextInputTraits, mirrored onto the class.
    open var autocorrectionType: UITextAutocorrectionType = .default

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextinputtraits/autocapitalizationtype>.
    // An optional requirement of UITextInputTraits, mirrored onto the class.
    open var autocapitalizationType: UITextAutocapitalizationType = .sentences

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextinputtraits/spellcheckingtype>.
    // An optional requirement of UITextInputTraits, mirrored onto the class.
    @available(iOS 5.0, *)
    open var spellCheckingType: UITextSpellCheckingType = .default

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextinput/selectedtextrange>.
    // A requirement of UITextInput. The page shows `@NSCopying var selectedTextRange: UITextRange?`;
    // `@NSCopying` only changes how the setter stores the value (see README.md).
    @available(iOS 3.2, *)
    open var selectedTextRange: UITextRange?

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextinput/markedtextrange>.
    // A requirement of UITextInput.
    @available(iOS 3.2, *)
    open var markedTextRange: UITextRange? { nil }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextinput/beginningofdocument>.
    // A requirement of UITextInput.
    @available(iOS 3.2, *)
    open var beginningOfDocument: UITextPosition { UITextPosition() }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextinput/endofdocument>.
    // A requirement of UITextInput.
    @available(iOS 3.2, *)
    open var endOfDocument: UITextPosition { UITextPosition() }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextinput/textrange(from:to:)>.
    // A requirement of UITextInput. `@discardableResult`: see README.md.
    @available(iOS 3.2, *)
    @discardableResult
    open func textRange(from fromPosition: UITextPosition, to toPosition: UITextPosition) -> UITextRange? {
        nil
    }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextinput/offset(from:to:)>.
    // A requirement of UITextInput. `@discardableResult`: see README.md.
    @available(iOS 3.2, *)
    @discardableResult
    open func offset(from: UITextPosition, to toPosition: UITextPosition) -> Int { 0 }
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uitextfielddelegate>.
// The page shows `@MainActor protocol UITextFieldDelegate : NSObjectProtocol`, an `@objc` protocol
// whose methods are all `optional`. `@objc` does not exist on Linux, so each method the project
// uses is a requirement with a default implementation in the extension below (see README.md).
// Foundation on Linux has `NSObjectProtocol`, so only `NSObject` subclasses can conform, as on iOS.
@MainActor public protocol UITextFieldDelegate: NSObjectProtocol {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextfielddelegate/textfield(_:shouldchangecharactersin:replacementstring:)>.
    // The current page marks it deprecated in iOS 27 (for `shouldChangeCharactersInRanges`, iOS 26);
    // the iOS 17 SDK the package targets has only this form.
    @available(iOS 2.0, *)
    @discardableResult
    func textField(
        _ textField: UITextField, shouldChangeCharactersIn range: NSRange, replacementString string: String
    ) -> Bool

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextfielddelegate/textfielddidbeginediting(_:)>.
    @available(iOS 2.0, *)
    func textFieldDidBeginEditing(_ textField: UITextField)

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextfielddelegate/textfielddidendediting(_:)>.
    @available(iOS 2.0, *)
    func textFieldDidEndEditing(_ textField: UITextField)

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextfielddelegate/textfielddidchangeselection(_:)>.
    @available(iOS 13.0, tvOS 13.0, *)
    func textFieldDidChangeSelection(_ textField: UITextField)

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextfielddelegate/textfieldshouldreturn(_:)>.
    @available(iOS 2.0, *)
    @discardableResult
    func textFieldShouldReturn(_ textField: UITextField) -> Bool
}

// The stand-ins for `optional`: a delegate implements only the methods it needs.
extension UITextFieldDelegate {
    @discardableResult
    public func textField(
        _ textField: UITextField, shouldChangeCharactersIn range: NSRange, replacementString string: String
    ) -> Bool {
        true
    }

    public func textFieldDidBeginEditing(_ textField: UITextField) {}

    public func textFieldDidEndEditing(_ textField: UITextField) {}

    public func textFieldDidChangeSelection(_ textField: UITextField) {}

    @discardableResult
    public func textFieldShouldReturn(_ textField: UITextField) -> Bool { true }
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uikeyboardtype>.
// `enum UIKeyboardType` (`Int` raw values); the stub declares the cases the project uses and the
// default value of `keyboardType`.
public enum UIKeyboardType: Int, Hashable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uikeyboardtype/default>.
    case `default` = 0
    /// Declared as on <https://developer.apple.com/documentation/uikit/uikeyboardtype/asciicapable>.
    case asciiCapable = 1
    /// Declared as on <https://developer.apple.com/documentation/uikit/uikeyboardtype/numberpad>.
    case numberPad = 4
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uitextcontenttype>.
// `struct UITextContentType`, a typed `String` constant.
public struct UITextContentType: RawRepresentable, Hashable, Sendable {
    /// The content type's string.
    public var rawValue: String

    /// Creates a content type from its string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextcontenttype/onetimecode>.
    @available(iOS 12.0, tvOS 12.0, *)
    public static let oneTimeCode = UITextContentType(rawValue: "one-time-code")
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uitextautocorrectiontype>.
// `enum UITextAutocorrectionType` (`Int` raw values): `RawRepresentable`, `Hashable`, `Sendable`.
public enum UITextAutocorrectionType: Int, Hashable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextautocorrectiontype/default>.
    case `default` = 0
    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextautocorrectiontype/no>.
    case no = 1
    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextautocorrectiontype/yes>.
    case yes = 2
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uitextautocapitalizationtype>.
// `enum UITextAutocapitalizationType` (`Int` raw values).
public enum UITextAutocapitalizationType: Int, Hashable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextautocapitalizationtype/none>.
    case none = 0
    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextautocapitalizationtype/words>.
    case words = 1
    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextautocapitalizationtype/sentences>.
    case sentences = 2
    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextautocapitalizationtype/allcharacters>.
    case allCharacters = 3
}

/// Declared as on <https://developer.apple.com/documentation/uikit/uitextspellcheckingtype>.
// `enum UITextSpellCheckingType` (`Int` raw values): `RawRepresentable`, `Hashable`, `Sendable`.
@available(iOS 5.0, *)
public enum UITextSpellCheckingType: Int, Hashable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextspellcheckingtype/default>.
    case `default` = 0
    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextspellcheckingtype/no>.
    case no = 1
    /// Declared as on <https://developer.apple.com/documentation/uikit/uitextspellcheckingtype/yes>.
    case yes = 2
}
