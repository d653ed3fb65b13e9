/// The code field's editing value: what the user has entered and what it means.
///
/// Every way text arrives (a key, a paste, system autofill, the hidden text
/// field's whole new text) goes through ``CodeNormalizer`` (UX F3), so the value
/// never holds more than the format's length or a character outside the format.
/// It also keeps the submit-once rule (F4), the replace-on-next-key rule after a
/// rejection (F5), tap to correct (F11) and the pasted-message rule (F12).
///
/// The entry is one slot per cell. Keys land in the highlighted cell: the selected
/// cell when one is selected (F11), else the first empty one. Where the platform
/// field's caret is does not matter, so a caret moved by a tap, an arrow key or a
/// trackpad drag never puts a key anywhere else.
public struct CodeEntry: Sendable, Equatable {
    /// The format this entry fills.
    public let format: CodeFormat
    /// One slot per cell; `nil` is an empty cell.
    private var slots: [Character?]
    /// The selected filled cell, whose character the next key replaces (F11), or `nil`.
    public private(set) var selection: Int?
    /// Whether the value was rejected, so the next key starts a new code (F5).
    public private(set) var isRejected = false
    /// The last code handed out for submission, so it is not submitted twice in a row (F4).
    public private(set) var lastSubmitted: String?

    /// Creates an empty entry for a format.
    public init(format: CodeFormat = .default) {
        self.format = format
        self.slots = Array(repeating: nil, count: format.length)
    }

    /// The normalised characters entered so far, in cell order (an emptied cell left out).
    public var value: String { String(slots.compactMap { $0 }) }

    /// What each cell holds, in order; `nil` for an empty cell.
    public var characters: [Character?] { slots }

    /// Whether every cell is filled.
    public var isComplete: Bool { slots.allSatisfy { $0 != nil } }

    /// Whether nothing is entered.
    public var isEmpty: Bool { slots.allSatisfy { $0 == nil } }

    /// The cell the next key goes to: the selection, else the first empty cell; `nil` when full.
    public var highlightedIndex: Int? { selection ?? slots.firstIndex(where: { $0 == nil }) }

    /// Inserts typed, pasted or autofilled text at the highlighted cell.
    ///
    /// After a rejection the text starts a new code instead (F5). Text that
    /// normalises to nothing changes nothing; keys past the last cell are dropped.
    public mutating func insert(_ text: String) {
        guard let incoming = Self.incoming(text, for: format) else { return }
        if incoming.count == format.length {
            replaceAll(with: incoming)
            return
        }
        if isRejected { startOver() }
        for character in incoming { _ = put(character) }
    }

    /// Deletes at the highlighted cell (F11: a selected cell is cleared; else the last character);
    /// after a rejection it clears the whole code (F5).
    public mutating func deleteBackward() {
        _ = delete()
    }

    /// Selects a cell to correct (F11): a filled cell is selected, so the next key replaces only
    /// it; any other cell gives the selection up, so keys go to the first empty cell again.
    ///
    /// Selecting a cell of a rejected code keeps its characters for correction.
    public mutating func select(_ index: Int?) {
        guard let index, slots.indices.contains(index), slots[index] != nil else {
            selection = nil
            return
        }
        isRejected = false
        selection = index
    }

    /// Moves the selection one cell left (`-1`) or right (`+1`), as the arrow keys do (F11).
    ///
    /// Left from no selection selects the last filled cell before the highlighted one; right
    /// from the last filled cell gives the selection up.
    public mutating func moveSelection(by step: Int) {
        let from = highlightedIndex ?? format.length
        var target = from + (step < 0 ? -1 : 1)
        if step < 0 {
            while target >= 0, slots[target] == nil { target -= 1 }
            if target >= 0 { select(target) }
        } else {
            while target < format.length, slots[target] == nil { target += 1 }
            select(target < format.length ? target : nil)
        }
    }

    /// Applies an edit the code field asks to make to its text, which shows ``value``.
    ///
    /// - Text inserted after a rejection starts a new code holding only what was
    ///   inserted; a deletion then clears the code (F5).
    /// - Inserted text that is a whole code (autofill) replaces the code; a pasted
    ///   message gives its one code (F12) or, with none, is refused. Several characters
    ///   at once that make the field's text a whole code give that code.
    /// - Otherwise the caret is pinned (F11): inserted text lands in the highlighted
    ///   cell, whatever range the field names, and is refused when it would overflow
    ///   the code; a deletion clears the highlighted cell or the last character, and a
    ///   deletion of the whole text clears the code.
    /// - Text with no character of the format, and marked text still being composed,
    ///   change nothing.
    @discardableResult
    public mutating func apply(_ edit: TextEdit) -> TextEditOutcome {
        if edit.isComposing { return .composing }
        if edit.replacement.isEmpty {
            if edit.range.isEmpty { return .refused }
            if isRejected || (edit.range.lowerBound == 0 && edit.range.upperBound >= value.utf16.count) {
                guard !isEmpty else { return .refused }
                clear()
                return .changed
            }
            return delete() ? .changed : .refused
        }
        guard let inserted = Self.incoming(edit.replacement, for: format) else { return .refused }
        if inserted.count == format.length {
            replaceAll(with: inserted)
            return .changed
        }
        if isRejected {
            startOver()
            for character in inserted { _ = put(character) }
            return .changed
        }
        // Several characters at once (a paste, an autofill) that make the text a whole code: that
        // code. An edit found by comparing texts can place them wrongly: a code pasted over a
        // selection that ends with the code's own last digit reads as an insertion before it.
        if edit.replacement.count > 1, let whole = Self.incoming(edit.applied(to: value), for: format),
            whole.count == format.length
        {
            replaceAll(with: whole)
            return .changed
        }
        let emptyCells = slots.filter { $0 == nil }.count
        guard inserted.count <= emptyCells + (selection == nil ? 0 : 1) else { return .refused }
        let before = slots
        for character in inserted { _ = put(character) }
        return slots == before ? .refused : .changed
    }

    /// Applies the hidden text field's new text, as a text field binding delivers it.
    ///
    /// The smallest edit from the current value to the new text (``TextEdit/difference(from:to:)``)
    /// is applied by ``apply(_:)``.
    public mutating func apply(text newText: String) {
        guard let edit = TextEdit.difference(from: value, to: newText) else { return }
        apply(edit)
    }

    /// Sets the code to a text the app gives (a binding it wrote), normalised and cut to the
    /// format: exactly that, not an edit at the highlighted cell.
    public mutating func replace(with text: String) {
        let code = CodeNormalizer.normalize(text, for: format)
        startOver()
        for (index, character) in code.enumerated() { slots[index] = character }
    }

    /// Empties the field and forgets a rejection.
    public mutating func clear() {
        startOver()
    }

    /// Marks the current value as rejected: it stays visible until the next key (F5).
    public mutating func markRejected() {
        isRejected = true
        selection = nil
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
        selection = nil
        return value
    }

    /// Whether the complete value is the code last submitted, so typing it again submits nothing.
    public var isLastSubmission: Bool { isComplete && value == lastSubmitted }

    /// The accessibility value of the field in English, such as "3 of 6 digits" (F10); never the characters.
    public var accessibilityValue: String {
        ScreenText.english.fieldValue(count: value.count, format: format)
    }

    // MARK: - Helpers

    /// The format characters of inserted text, or `nil` when it holds none; a text of more than a
    /// code is read as a pasted message (F12) and gives its one code, or `nil` without one.
    private static func incoming(_ text: String, for format: CodeFormat) -> String? {
        let normalized = CodeNormalizer.normalizeUncut(text, for: format)
        if normalized.isEmpty { return nil }
        if normalized.count <= format.length { return normalized }
        return CodeNormalizer.code(inMessage: text, for: format)
    }

    private mutating func replaceAll(with code: String) {
        isRejected = false
        selection = nil
        slots = code.map { Optional($0) }
    }

    private mutating func startOver() {
        slots = Array(repeating: nil, count: format.length)
        isRejected = false
        selection = nil
    }

    /// Puts one character in the highlighted cell, giving a selection up; `false` when full.
    private mutating func put(_ character: Character) -> Bool {
        guard let index = highlightedIndex else { return false }
        slots[index] = character
        selection = nil
        return true
    }

    /// Deletes as Backspace does; `false` when nothing changed.
    private mutating func delete() -> Bool {
        if isRejected {
            let changed = !isEmpty
            startOver()
            return changed
        }
        if let selection {
            if slots[selection] != nil {
                slots[selection] = nil
                return true
            }
            // The selected cell is already empty: Backspace moves to the filled cell before it.
            guard let previous = slots[..<selection].lastIndex(where: { $0 != nil }) else { return false }
            slots[previous] = nil
            self.selection = previous
            return true
        }
        guard let last = slots.lastIndex(where: { $0 != nil }) else { return false }
        slots[last] = nil
        return true
    }
}
