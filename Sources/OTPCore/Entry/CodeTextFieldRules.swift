/// How a platform text field under the code cells and the code stay one (UX F1, F3–F5).
///
/// The SwiftUI field's UIKit delegate follows these rules, and the tests drive a
/// model of a UIKit text field through the same functions:
///
/// - Every edit the field asks for goes to the code (``CodeEntry/apply(_:)``
///   through the screen or the field on its own), and the field is told no; the
///   owner then sets the field's text to the code and puts the caret at the end.
///   So the field never holds a character the code refused, and the next edit's
///   range is never ambiguous.
/// - Only marked text being composed (a Japanese or Chinese keyboard) is let
///   through, so the keyboard can compose; the code changes when it is committed.
/// - A change the field makes without asking (undo, a committed composition,
///   dictation) is turned into the edit from the code to the field's new text.
public enum CodeTextFieldRules {
    /// What the field's delegate answers for an edit it is asked about.
    ///
    /// - Parameters:
    ///   - edit: The range and replacement the field asks about.
    ///   - isComposing: Whether the field holds marked text now.
    ///   - keyboardComposes: Whether the keyboard composes before it commits (``keyboardComposes(primaryLanguage:)``).
    ///   - apply: Hands the edit to the code and says what happened.
    /// - Returns: Whether the field may apply the edit itself: only for marked text.
    public static func shouldChange(
        _ edit: TextEdit, isComposing: Bool, keyboardComposes: Bool = false,
        apply: (TextEdit) -> TextEditOutcome
    ) -> Bool {
        // A composing keyboard's first marked key arrives before the field holds marked text; let
        // it (and every key of such a keyboard) through, and take the text once it is committed
        // (``editAfterChange(fieldText:isComposing:code:)``), so the first digit is not committed
        // early (issue 31, item 12).
        if isComposing || keyboardComposes { return true }
        return apply(edit) == .composing
    }

    /// Whether a keyboard of this primary language (`UITextInputMode.primaryLanguage`) composes
    /// text before committing it: Japanese, Chinese and Korean keyboards do.
    public static func keyboardComposes(primaryLanguage: String?) -> Bool {
        guard let language = primaryLanguage?.lowercased() else { return false }
        return ["ja", "zh", "ko"].contains { language == $0 || language.hasPrefix($0 + "-") }
    }

    /// The edit to hand to the code after the field changed its own text, or `nil` when there
    /// is nothing to hand over (no difference, or marked text still being composed).
    public static func editAfterChange(fieldText: String, isComposing: Bool, code: String) -> TextEdit? {
        guard !isComposing else { return nil }
        return TextEdit.difference(from: code, to: fieldText)
    }
}
