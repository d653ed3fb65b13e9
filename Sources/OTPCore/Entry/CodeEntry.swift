/// The code field's editing value: what the user has entered and what it means.
///
/// Every way text arrives (a key, a paste, system autofill, the hidden text
/// field's whole new text) goes through ``CodeNormalizer`` (UX F3), so the value
/// never holds more than the format's length or a character outside the format.
/// It also keeps the submit-once rule (F4) and the replace-on-next-key rule
/// after a rejection (F5).
public struct CodeEntry: Sendable, Equatable {
    /// The format this entry fills.
    public let format: CodeFormat
    /// The normalised characters entered so far.
    public private(set) var value: String = ""
    /// Whether the value was rejected, so the next key starts a new code (F5).
    public private(set) var isRejected = false
    /// The last code handed out for submission, so it is not submitted twice in a row (F4).
    public private(set) var lastSubmitted: String?

    /// Creates an empty entry for a format.
    public init(format: CodeFormat = .default) {
        self.format = format
    }

    /// Whether every cell is filled.
    public var isComplete: Bool { value.count == format.length }

    /// Whether nothing is entered.
    public var isEmpty: Bool { value.isEmpty }

    /// Inserts typed, pasted or autofilled text at the end.
    ///
    /// After a rejection the text starts a new code instead (F5). Text that
    /// normalises to nothing changes nothing.
    public mutating func insert(_ text: String) {
        let incoming = CodeNormalizer.normalizeUncut(text, for: format)
        guard !incoming.isEmpty else { return }
        if isRejected {
            value = ""
            isRejected = false
        }
        if incoming.count >= format.length {
            // A whole code pasted or autofilled replaces what was there.
            value = String(incoming.prefix(format.length))
        } else {
            value = String((value + incoming).prefix(format.length))
        }
    }

    /// Deletes the last character; after a rejection it clears the whole code (F5).
    public mutating func deleteBackward() {
        if isRejected {
            clear()
        } else if !value.isEmpty {
            value.removeLast()
        }
    }

    /// Applies an edit the code field asks to make to its text, which shows ``value``.
    ///
    /// - Text inserted after a rejection starts a new code holding only what was
    ///   inserted, wherever the caret was; a deletion then clears the code (F5).
    /// - Inserted text that is a whole code (autofill, a pasted message) replaces
    ///   the code, wherever the caret or selection was.
    /// - Otherwise the edit applies where the field says: a key or a paste at the
    ///   caret, a selection replaced, a delete before or after the caret. An edit
    ///   that would make the code longer than the format is refused, never cut, so a
    ///   submission only holds what the user entered, in the order they entered it.
    /// - Text with no character of the format, and marked text still being composed,
    ///   change nothing.
    @discardableResult
    public mutating func apply(_ edit: TextEdit) -> TextEditOutcome {
        if edit.isComposing { return .composing }
        let inserted = CodeNormalizer.normalizeUncut(edit.replacement, for: format)
        if !edit.replacement.isEmpty, inserted.isEmpty { return .refused }
        if isRejected {
            isRejected = false
            value = String(inserted.prefix(format.length))
            return .changed
        }
        if inserted.count >= format.length {
            value = String(inserted.prefix(format.length))
            return .changed
        }
        let normalizedEdit = TextEdit(range: edit.range, replacement: inserted)
        let result = normalizedEdit.applied(to: value)
        guard result.count <= format.length, result != value else { return .refused }
        value = result
        return .changed
    }

    /// Applies the hidden text field's new text, as a text field binding delivers it.
    ///
    /// The smallest edit from the current value to the new text (``TextEdit/difference(from:to:)``)
    /// is applied by ``apply(_:)``, so a key pressed with the caret before the code
    /// is that key, not a paste of the whole text.
    public mutating func apply(text newText: String) {
        guard let edit = TextEdit.difference(from: value, to: newText) else { return }
        apply(edit)
    }

    /// Empties the field and forgets a rejection.
    public mutating func clear() {
        value = ""
        isRejected = false
    }

    /// Marks the current value as rejected: it stays visible until the next key (F5).
    public mutating func markRejected() {
        isRejected = true
    }

    /// Allows the last submitted code to be submitted again, for an explicit retry.
    public mutating func forgetSubmission() {
        lastSubmitted = nil
    }

    /// Returns the code to submit when the value is complete and differs from the
    /// last submission, and remembers it (F4); otherwise `nil`.
    public mutating func takeSubmission() -> String? {
        guard isComplete, !isRejected, value != lastSubmitted else { return nil }
        lastSubmitted = value
        return value
    }

    /// The accessibility value of the field in English, such as "3 of 6 digits" (F10); never the characters.
    public var accessibilityValue: String {
        ScreenText.english.fieldValue(count: value.count, format: format)
    }
}
