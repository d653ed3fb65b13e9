import Foundation
import OTPCore

/// Writes the API's two response objects straight to bytes, as `WireCoding.encoder()` would.
///
/// Same output (sorted keys, unescaped slashes, RFC 3339 UTC times with milliseconds), a test holds
/// the two equal, at a fraction of the cost: the error body alone was a tenth of a check's time.
enum ResponseJSON {
    /// A verification object.
    static func verification(_ verification: Verification) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(320)
        out += Array(#"{"attemptsLeft":"#.utf8)
        number(verification.attemptsLeft, into: &out)
        out += Array(#","channel":"#.utf8)
        string(verification.channel.rawValue, into: &out)
        out += Array(#","codeLength":"#.utf8)
        number(verification.codeLength, into: &out)
        out += Array(#","createdAt":""#.utf8)
        timestamp(verification.createdAt, into: &out)
        out += Array(#"","expiresAt":""#.utf8)
        timestamp(verification.expiresAt, into: &out)
        out += Array(#"","id":"#.utf8)
        string(verification.id, into: &out)
        out += Array(#","resendAvailableAt":"#.utf8)
        if let date = verification.resendAvailableAt {
            out.append(UInt8(ascii: "\""))
            timestamp(date, into: &out)
            out.append(UInt8(ascii: "\""))
        } else {
            out += Array("null".utf8)
        }
        out += Array(#","sendsLeft":"#.utf8)
        number(verification.sendsLeft, into: &out)
        out += Array(#","status":"#.utf8)
        string(verification.status.rawValue, into: &out)
        out += Array(#","to":"#.utf8)
        string(verification.to, into: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Adds a string member at the end of a JSON object's bytes.
    static func add(_ name: String, _ value: String, to object: inout [UInt8]) {
        guard object.last == UInt8(ascii: "}") else { return }
        object.removeLast()
        object += Array(",".utf8)
        string(name, into: &object)
        object.append(UInt8(ascii: ":"))
        string(value, into: &object)
        object.append(UInt8(ascii: "}"))
    }

    /// An error body, `{"error":{…}}`.
    static func error(_ error: APIError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(160)
        out += Array(#"{"error":{"attemptsLeft":"#.utf8)
        optional(error.attemptsLeft, into: &out)
        out += Array(#","code":"#.utf8)
        string(error.code.rawValue, into: &out)
        out += Array(#","message":"#.utf8)
        string(error.message, into: &out)
        out += Array(#","retryAfter":"#.utf8)
        optional(error.retryAfter, into: &out)
        out += Array("}}".utf8)
        return out
    }

    /// A time as `2026-11-30T07:00:30.250Z`: UTC, the fraction of the second truncated to milliseconds
    /// exactly as Foundation's ISO 8601 style does it.
    static func timestamp(_ date: Date) -> String {
        var out: [UInt8] = []
        timestamp(date, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func timestamp(_ date: Date, into out: inout [UInt8]) {
        let interval = date.timeIntervalSince1970
        let whole = interval.rounded(.down)
        var seconds = time_t(whole)
        let fraction = min(999, Int(((interval - whole) * 1000).rounded(.down)))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        digits(Int(parts.tm_year) + 1900, 4, into: &out)
        out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2, into: &out)
        out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2, into: &out)
        out.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2, into: &out)
        out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2, into: &out)
        out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2, into: &out)
        out.append(UInt8(ascii: "."))
        digits(fraction, 3, into: &out)
        out.append(UInt8(ascii: "Z"))
    }

    private static func digits(_ value: Int, _ width: Int, into out: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8((rest / divisor) % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    private static func number(_ value: Int, into out: inout [UInt8]) {
        out += Array(String(value).utf8)
    }

    private static func optional(_ value: Int?, into out: inout [UInt8]) {
        if let value { number(value, into: &out) } else { out += Array("null".utf8) }
    }

    /// A JSON string as Foundation's encoder writes it: `"` and `\` escaped, control characters as
    /// `\b \f \n \r \t` or `\u00XX`, everything else (slashes, non-ASCII) as is.
    static func string(_ value: String, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                out += Array("\\u00".utf8)
                out += [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
