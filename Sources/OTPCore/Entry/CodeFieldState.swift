/// What a code field used on its own does with a rejected code.
public enum RejectionBehavior: Sendable, Hashable, CaseIterable {
    /// The digits stay in the error colour until the next key, which starts a new code (UX F5).
    case keepDigits
    /// The field empties at once and takes focus again for a new code (seed 000's OtpAutofill).
    case clearAndRefocus
}

/// A code field used on its own, with a binding and a completion, outside a verification screen.
///
/// It keeps the field's rules (F3 normalisation, F4 submit once, F5 replace after
/// a rejection, F6 one shake per rejection) so the view only forwards edits and
/// the caller's invalid flag or rejection count. A field that checks its own codes
/// (``beginVerifying()``, then ``verified()`` or ``reject()``) also shows verifying
/// (dimmed, read-only) and verified (success colour, locked).
public struct CodeFieldState: Sendable, Equatable {
    /// Where the field stands.
    public enum Phase: Sendable, Hashable {
        /// Taking keys.
        case editing
        /// A complete code is being checked: dimmed, read-only.
        case verifying
        /// The code was right: success colour, locked.
        case verified
    }

    /// What has been entered.
    public private(set) var entry: CodeEntry
    /// Whether the caller marked the code wrong.
    public private(set) var isInvalid = false
    /// Where the field stands.
    public private(set) var phase = Phase.editing
    /// What a rejection does to the digits.
    public var rejectionBehavior: RejectionBehavior
    /// Changes once per transition into the invalid state: shake and play the error haptic.
    public private(set) var shakeTrigger = 0
    /// Whether the keyboard should be up: not after a code was handed over (seed 003 unfocuses on
    /// complete) until it is rejected or edited, and never once verified.
    public private(set) var keepsKeyboard = true
    /// Changes once per code handed to the completion; the view reads the caller's invalid flag
    /// again when it changes (``setInvalid(_:)``), since a flag kept on does not change.
    public private(set) var submissionCount = 0
    /// Whether a code was handed over and the caller's flag has not been read since.
    private var awaitingVerdict = false
    /// The sentences, in the field's language.
    public let text: ScreenText

    /// Creates a field for a format, speaking a language.
    public init(
        format: CodeFormat = .default, language: TextLanguage = .english,
        rejectionBehavior: RejectionBehavior = .keepDigits
    ) {
        entry = CodeEntry(format: format)
        text = ScreenText(language)
        self.rejectionBehavior = rejectionBehavior
    }

    /// The normalised text, to write back to the caller's binding.
    public var value: String { entry.value }

    /// The format the field fills.
    public var format: CodeFormat { entry.format }

    /// Whether edits are taken: not while a code is checked or once it was right.
    public var isEditable: Bool { phase == .editing }

    /// Applies the hidden text field's new text; returns the code to hand to the completion, once.
    public mutating func edit(_ text: String) -> String? {
        guard isEditable else { return nil }
        entry.apply(text: text)
        return afterEdit()
    }

    /// Sets the code the caller wrote to its binding, exactly (normalised); returns the code to hand
    /// to the completion, once, when it is complete.
    public mutating func setValue(_ text: String) -> String? {
        guard isEditable, text != entry.value else { return nil }
        entry.replace(with: text)
        return afterEdit()
    }

    /// Applies an edit the text field asks for; returns what it did and the code to hand to the
    /// completion, once.
    public mutating func edit(_ edit: TextEdit) -> (outcome: TextEditOutcome, submission: String?) {
        guard isEditable else { return (.refused, nil) }
        let outcome = entry.apply(edit)
        guard outcome == .changed else { return (outcome, nil) }
        return (outcome, afterEdit())
    }

    /// Changes the format when the caller passes a new one: a code of the old format is dropped.
    public mutating func setFormat(_ format: CodeFormat) {
        guard format != entry.format else { return }
        entry = CodeEntry(format: format)
        isInvalid = false
        phase = .editing
        keepsKeyboard = true
        awaitingVerdict = false
    }

    /// The field's accessibility value: the count, then the state (F10).
    ///
    /// Such as "3 of 6 digits", "6 of 6 digits, Verifying…" or "6 of 6 digits, Code doesn't match."
    public var accessibilityValue: String {
        let count = text.fieldValue(count: entry.value.count, format: entry.format)
        let status: String? =
            switch phase {
            case .verifying: text.verifying
            case .verified: text.verified
            case .editing: isInvalid ? text.codeRejected : nil
            }
        return text.fieldValue(count, status: status)
    }

    /// Sets the caller's invalid flag: turning it on keeps the digits for the next key to replace (or
    /// clears them, by ``rejectionBehavior``), shakes once, and brings the keyboard back.
    ///
    /// The flag read after a code was handed over is that code's verdict: on means rejected even
    /// when it was already on, so a caller that keeps it on through two wrong codes in a row gets
    /// the error colour, the shake and the keyboard for each (the view reads it again when
    /// ``submissionCount`` changes).
    public mutating func setInvalid(_ invalid: Bool) {
        let isVerdict = awaitingVerdict
        awaitingVerdict = false
        if invalid, !isInvalid || isVerdict {
            reject()
        } else if !invalid {
            isInvalid = false
        }
    }

    /// Selects a cell to correct (F11): a filled cell's character is replaced by the next key;
    /// `nil` or an empty cell gives the selection up.
    public mutating func select(_ index: Int?) {
        guard isEditable else { return }
        entry.select(index)
        if isInvalid, rejectionBehavior == .keepDigits, !entry.isRejected { isInvalid = false }
    }

    /// Moves the selection one cell left or right, as the arrow keys do (F11).
    public mutating func moveSelection(by step: Int) {
        guard isEditable else { return }
        entry.moveSelection(by: step)
        if isInvalid, rejectionBehavior == .keepDigits, !entry.isRejected { isInvalid = false }
    }

    /// Marks the code entered rejected: error colour, one shake, the keyboard back, and the next key
    /// starts over (or the field empties, by ``rejectionBehavior``).
    ///
    /// Unlike ``setInvalid(_:)``, which shakes on the flag's change only, every call is a new
    /// rejection, so a second wrong code in a row shakes again.
    public mutating func reject() {
        markRejected()
        isInvalid = true
        awaitingVerdict = false
        shakeTrigger += 1
    }

    /// A complete code is being checked by the field itself: dimmed and read-only until the answer.
    public mutating func beginVerifying() {
        guard phase == .editing else { return }
        phase = .verifying
    }

    /// The code was right: success colour, locked, no keyboard.
    public mutating func verified() {
        phase = .verified
        isInvalid = false
        keepsKeyboard = false
    }

    /// The cells to draw: dimmed while verifying, in the success colour once verified, in the
    /// error colour after a rejection.
    public func cells(isFocused: Bool, isMasked: Bool) -> [CodeCell] {
        let role: ColorRole =
            switch phase {
            case .verifying: .progress
            case .verified: .success
            case .editing: isInvalid ? .error : .neutral
            }
        return entry.cells(isFocused: isFocused, isEditable: isEditable, isMasked: isMasked, role: role)
    }

    /// The cells split into the format's groups.
    public func cellGroups(isFocused: Bool, isMasked: Bool) -> [[CodeCell]] {
        entry.format.group(cells(isFocused: isFocused, isMasked: isMasked))
    }

    private mutating func markRejected() {
        phase = .editing
        keepsKeyboard = true
        switch rejectionBehavior {
        case .keepDigits:
            entry.markRejected()
        case .clearAndRefocus:
            entry.clear()
            entry.forgetSubmission()
        }
    }

    private mutating func afterEdit() -> String? {
        if isInvalid, rejectionBehavior == .keepDigits ? !entry.isRejected : !entry.isEmpty {
            isInvalid = false
        }
        keepsKeyboard = true
        let submission = entry.takeSubmission()
        if submission != nil {
            keepsKeyboard = false
            submissionCount += 1
            awaitingVerdict = true
        }
        return submission
    }
}
