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

    /// Creates a field for a format.
    public init(format: CodeFormat = .default) {
        entry = CodeEntry(format: format)
    }

    /// The normalised text, to write back to the caller's binding.
    public var value: String { entry.value }

    /// Applies the hidden text field's new text; returns the code to hand to the completion, once.
    public mutating func edit(_ text: String) -> String? {
        entry.apply(text: text)
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
