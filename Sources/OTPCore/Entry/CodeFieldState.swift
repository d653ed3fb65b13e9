/// A code field used on its own, with a binding and a completion, outside a verification screen.
///
/// It keeps the field's rules (F3 normalisation, F4 submit once, F5 replace after
/// a rejection, F6 one shake per rejection) so the view only forwards text and
/// the caller's invalid flag or rejection count.
public struct CodeFieldState: Sendable, Equatable {
    /// What has been entered.
    public private(set) var entry: CodeEntry
    /// Whether the caller marked the code wrong.
    public private(set) var isInvalid = false
    /// Changes once per transition into the invalid state: shake and play the error haptic.
    public private(set) var shakeTrigger = 0
    private var errors = ErrorTransitionDetector()
    /// The sentences, in the field's language.
    public let text: ScreenText

    /// Creates a field for a format, speaking a language.
    public init(format: CodeFormat = .default, language: TextLanguage = .english) {
        entry = CodeEntry(format: format)
        text = ScreenText(language)
    }

    /// The normalised text, to write back to the caller's binding.
    public var value: String { entry.value }

    /// The format the field fills.
    public var format: CodeFormat { entry.format }

    /// Applies the hidden text field's new text; returns the code to hand to the completion, once.
    public mutating func edit(_ text: String) -> String? {
        entry.apply(text: text)
        return afterEdit()
    }

    /// Applies an edit the text field asks for; returns what it did and the code to hand to the
    /// completion, once.
    public mutating func edit(_ edit: TextEdit) -> (outcome: TextEditOutcome, submission: String?) {
        let outcome = entry.apply(edit)
        guard outcome == .changed else { return (outcome, nil) }
        return (outcome, afterEdit())
    }

    /// Changes the format when the caller passes a new one: a code of the old format is dropped.
    public mutating func setFormat(_ format: CodeFormat) {
        guard format != entry.format else { return }
        entry = CodeEntry(format: format)
        isInvalid = false
        errors = ErrorTransitionDetector()
    }

    /// The field's accessibility value: the count, and "Code doesn't match." after a rejection (F10).
    public var accessibilityValue: String {
        let count = text.fieldValue(count: entry.value.count, format: entry.format)
        return text.fieldValue(count, status: isInvalid ? text.codeRejected : nil)
    }

    private mutating func afterEdit() -> String? {
        if isInvalid, !entry.isRejected { isInvalid = false }
        return entry.takeSubmission()
    }

    /// Sets the caller's invalid flag: turning it on keeps the digits for the next key to replace, and shakes once.
    public mutating func setInvalid(_ invalid: Bool) {
        if invalid, !isInvalid { entry.markRejected() }
        isInvalid = invalid
        if errors.update(isError: invalid) { shakeTrigger += 1 }
    }

    /// Marks the code entered rejected: error colour, the next key starts over, and one shake.
    ///
    /// Unlike ``setInvalid(_:)``, which shakes on the flag's change only, every call is a new
    /// rejection, so a second wrong code in a row shakes again.
    public mutating func reject() {
        entry.markRejected()
        isInvalid = true
        _ = errors.update(isError: true)
        shakeTrigger += 1
    }

    /// The cells to draw.
    public func cells(isFocused: Bool, isMasked: Bool) -> [CodeCell] {
        entry.cells(isFocused: isFocused, isMasked: isMasked, isInvalid: isInvalid)
    }

    /// The cells split into the format's groups.
    public func cellGroups(isFocused: Bool, isMasked: Bool) -> [[CodeCell]] {
        entry.format.group(cells(isFocused: isFocused, isMasked: isMasked))
    }
}
