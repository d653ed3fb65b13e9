/// JSON text in one byte form, for what is hashed or signed: RFC 8785's string escapes.
public enum CanonicalJSON {
    /// `text` as a JSON string literal: `"` and `\` escaped, `\b \f \n \r \t`, other control
    /// characters as `\u00xx` in lower-case hex, everything else as is.
    public static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON object of `members` in the given order; each value is already JSON text.
    public static func object(_ members: [(name: String, value: String)]) -> String {
        "{" + members.map { string($0.name) + ":" + $0.value }.joined(separator: ",") + "}"
    }
}
