import OTPCore

/// Compact JSON text written by hand, so that tokens and key sets have one stable byte form.
enum JSONText {
    /// `value` as a JSON string literal, escaped as RFC 8785 does.
    static func string(_ value: String) -> String {
        CanonicalJSON.string(value)
    }

    /// A JSON object of `members` in the given order; each value is already JSON text.
    static func object(_ members: [(name: String, value: String)]) -> String {
        CanonicalJSON.object(members)
    }
}
