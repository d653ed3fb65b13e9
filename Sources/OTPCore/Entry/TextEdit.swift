/// One change a text field asks to make to its text: replace a range with new text.
///
/// This is what a UIKit text field's delegate is asked before every edit
/// (`textField(_:shouldChangeCharactersIn:replacementString:)`): a key typed at
/// the caret, a selection replaced, a paste at the caret, autofill replacing all,
/// a delete before or after the caret, an undo. The range counts UTF-16 code
/// units of the field's current text, as `NSRange` does.
///
/// ``CodeEntry/apply(_:)`` decides what the edit means for the code; the field
/// then shows the entry's value with the caret at the end, so the next edit is
/// never ambiguous.
public struct TextEdit: Sendable, Hashable {
    /// The replaced part of the field's text, in UTF-16 offsets.
    public var range: Range<Int>
    /// The text put in its place; empty for a deletion.
    public var replacement: String
    /// Whether the replacement is still being composed (marked text from a Japanese or
    /// Chinese keyboard), so it is not yet text the user committed.
    public var isComposing: Bool

    /// Creates an edit.
    public init(range: Range<Int>, replacement: String, isComposing: Bool = false) {
        self.range = range
        self.replacement = replacement
        self.isComposing = isComposing
    }

    /// Creates an edit from an `NSRange`'s location and length, as a delegate receives them.
    public init(location: Int, length: Int, replacement: String, isComposing: Bool = false) {
        let start = max(0, location)
        self.init(range: start..<(start + max(0, length)), replacement: replacement, isComposing: isComposing)
    }

    /// The smallest edit that turns `old` into `new`, or `nil` when they are equal.
    ///
    /// For a field that reports only its whole new text (a SwiftUI `TextField`
    /// bound to a string): the common start and end are kept, and what lies
    /// between is the replaced range and the replacement. Where a repeated
    /// character makes the position ambiguous ("44" to "444"), the result of
    /// applying the edit is the same whichever position is taken.
    public static func difference(from old: String, to new: String) -> TextEdit? {
        if old == new { return nil }
        let before = Array(old.utf16)
        let after = Array(new.utf16)
        var prefix = 0
        while prefix < before.count, prefix < after.count, before[prefix] == after[prefix] {
            prefix += 1
        }
        var suffix = 0
        while suffix < before.count - prefix, suffix < after.count - prefix,
            before[before.count - 1 - suffix] == after[after.count - 1 - suffix]
        {
            suffix += 1
        }
        let inserted = after[prefix..<(after.count - suffix)]
        return TextEdit(
            range: prefix..<(before.count - suffix),
            replacement: String(decoding: inserted, as: UTF16.self))
    }

    /// The text after this edit is applied to `text`; a range past the end is clamped to it.
    public func applied(to text: String) -> String {
        let units = Array(text.utf16)
        let lower = min(range.lowerBound, units.count)
        let upper = min(max(range.upperBound, lower), units.count)
        return String(decoding: units[..<lower], as: UTF16.self) + replacement
            + String(decoding: units[upper...], as: UTF16.self)
    }
}

/// What ``CodeEntry/apply(_:)`` did with an edit.
public enum TextEditOutcome: Sendable, Hashable {
    /// The code changed.
    case changed
    /// The edit was refused (a character the format does not take, a full code, read-only):
    /// the field goes back to the code's value.
    case refused
    /// Marked text is being composed: the field may show it, the code waits for the commit.
    case composing
}
