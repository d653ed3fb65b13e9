/// Compact JSON text written by hand, so that tokens and key sets have one stable byte form.
enum JSONText {
    /// `value` as a JSON string literal: quotes, backslashes and control characters escaped.
    static func string(_ value: String) -> String {
        var output = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    /// A JSON object of `members` in the given order; each value is already JSON text.
    static func object(_ members: [(name: String, value: String)]) -> String {
        "{" + members.map { string($0.name) + ":" + $0.value }.joined(separator: ",") + "}"
    }
}
