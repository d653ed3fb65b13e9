/// The key in a keypad's bottom-left corner (UX K1).
public enum KeypadAccessory: Sendable, Hashable {
    /// No key: the corner stays empty.
    case none
    /// A biometric key, such as Face ID, with its accessibility label and symbol name.
    case biometric(label: String, systemImage: String)
    /// A decimal separator, for amounts.
    case decimal
}

/// One key of a keypad (UX K1).
public enum KeypadKey: Sendable, Hashable, Identifiable {
    /// A digit 0–9.
    case digit(Int)
    /// The accessory key of the bottom-left corner.
    case accessory(KeypadAccessory)
    /// Deletes the last character.
    case delete

    /// A stable identity for lists of keys.
    public var id: String {
        switch self {
        case .digit(let digit): "digit-\(digit)"
        case .accessory: "accessory"
        case .delete: "delete"
        }
    }

    /// The text on the key: the digit, `.` for decimal, empty for symbol keys.
    public var title: String {
        switch self {
        case .digit(let digit): String(digit)
        case .accessory(.decimal): "."
        case .accessory, .delete: ""
        }
    }

    /// What assistive technology reads for the key, in English.
    public var accessibilityLabel: String { accessibilityLabel(in: .english) }

    /// What assistive technology reads for the key, in the language of `text`.
    public func accessibilityLabel(in text: ScreenText) -> String {
        switch self {
        case .digit(let digit): String(digit)
        case .accessory(.decimal): text.decimalPointKey
        case .accessory(.biometric(let label, _)): label
        case .accessory(.none): ""
        case .delete: text.deleteKey
        }
    }

    /// The key a hardware keyboard's characters stand for on a keypad (item 12): a digit (any
    /// Unicode decimal digit), Backspace or Delete, and `.` or `,` for a decimal accessory; `nil`
    /// for anything else, which the keypad leaves to others.
    public init?(hardwareCharacters characters: String, accessory: KeypadAccessory) {
        switch characters {
        case "\u{7F}", "\u{8}", "\u{F728}": self = .delete
        case ".", ",":
            guard accessory == .decimal else { return nil }
            self = .accessory(.decimal)
        default:
            let digits = CodeNormalizer.keptCharacters(of: characters, for: CodeFormat(length: 4))
            guard characters.count == 1, let digit = digits.first?.wholeNumberValue else { return nil }
            self = .digit(digit)
        }
    }

    /// Whether the key is drawn at all; the empty accessory corner is not.
    public var isVisible: Bool {
        self != .accessory(.none)
    }
}

/// The keypad's layout: 1–9 in three rows, then accessory, 0, delete (UX K1).
public enum KeypadLayout {
    /// The four rows of keys for an accessory.
    public static func rows(accessory: KeypadAccessory) -> [[KeypadKey]] {
        [
            [.digit(1), .digit(2), .digit(3)],
            [.digit(4), .digit(5), .digit(6)],
            [.digit(7), .digit(8), .digit(9)],
            [.accessory(accessory), .digit(0), .delete],
        ]
    }
}

/// What a keypad press does to a value (UX K1).
public struct KeypadInput: Sendable, Hashable {
    /// What the press did.
    public enum Outcome: Sendable, Hashable {
        /// The value changed; play the selection haptic.
        case changed
        /// The value is now full: this is the whole value.
        case completed(String)
        /// Nothing changed (full, empty, disabled, or a second decimal point).
        case ignored
        /// The biometric key was pressed: run the biometric action.
        case biometric
    }

    /// The characters entered.
    public private(set) var value: String
    /// The most characters the value may hold.
    public let maxLength: Int

    /// Creates an input; a value longer than `maxLength` is cut.
    public init(value: String = "", maxLength: Int) {
        self.maxLength = max(1, maxLength)
        self.value = String(value.prefix(self.maxLength))
    }

    /// Whether delete can do anything: disabled while nothing is entered.
    public var isDeleteEnabled: Bool { !value.isEmpty }

    /// Whether a key is enabled: delete only with something to delete, the empty corner never.
    public func isEnabled(_ key: KeypadKey) -> Bool {
        key == .delete ? isDeleteEnabled : key.isVisible
    }

    /// Applies a key press.
    public mutating func press(_ key: KeypadKey) -> Outcome {
        switch key {
        case .digit(let digit):
            guard (0...9).contains(digit), value.count < maxLength else { return .ignored }
            value.append(String(digit))
        case .accessory(.decimal):
            guard !value.contains("."), value.count < maxLength else { return .ignored }
            value.append(value.isEmpty ? "0." : ".")
            value = String(value.prefix(maxLength))
        case .accessory(.biometric):
            return .biometric
        case .accessory(.none):
            return .ignored
        case .delete:
            guard !value.isEmpty else { return .ignored }
            value.removeLast()
            return .changed
        }
        return value.count == maxLength ? .completed(value) : .changed
    }

    /// Empties the value.
    public mutating func clear() {
        value = ""
    }
}
