/// What the verification screen's code field draws, read from the machine in one go.
///
/// The model publishes a new value only when one of these changes, so the field (and the
/// platform text field under it) is not redrawn on every countdown tick (issue 31, item 8).
public struct CodeFieldSnapshot: Sendable, Hashable {
    /// The normalised code; the hidden text field shows it.
    public var codeText: String
    /// The cells with text, colour role, highlight and selection.
    public var cells: [CodeCell]
    /// The code's format.
    public var format: CodeFormat
    /// Whether keys, paste and autofill are taken.
    public var isInputEnabled: Bool
    /// Whether the keyboard should be up.
    public var keepsKeyboard: Bool
    /// The field's accessibility label (F10).
    public var accessibilityLabel: String
    /// The field's accessibility value: the count and the state, never the characters (F10).
    public var accessibilityValue: String
    /// Changes once per rejection: shake the cells (F6).
    public var shakeTrigger: Int
    /// The haptic to play.
    public var hapticEvent: HapticEvent?

    /// Reads the field's part of a machine.
    public init(_ machine: VerificationMachine) {
        codeText = machine.entry.value
        cells = machine.cells
        format = machine.format
        isInputEnabled = machine.isInputEnabled
        keepsKeyboard = machine.keepsKeyboard
        accessibilityLabel = machine.text.fieldLabel
        accessibilityValue = machine.accessibilityValue
        shakeTrigger = machine.shakeTrigger
        hapticEvent = machine.hapticEvent
    }
}
