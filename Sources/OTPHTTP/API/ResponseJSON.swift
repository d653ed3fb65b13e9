import Foundation
import OTPCore

/// Writes the API's two response objects straight to bytes, as `WireCoding.encoder()` would.
///
/// Same output (sorted keys, unescaped slashes, RFC 3339 UTC times with milliseconds), a test holds
/// the two equal, at a fraction of the cost.
enum ResponseJSON {
    // Encoded by `JSONEncoder`, the error body alone was a tenth of a check's time.
    /// A verification object.
    static func verification(_ verification: Verification) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(320)
        out.append(contentsOf: #"{"attemptsLeft":"#.utf8)
        number(verification.attemptsLeft, into: &out)
        out.append(contentsOf: #","channel":"#.utf8)
        string(verification.channel.rawValue, into: &out)
        out.append(contentsOf: #","codeLength":"#.utf8)
        number(verification.codeLength, into: &out)
        out.append(contentsOf: #","createdAt":""#.utf8)
        timestamp(verification.createdAt, into: &out)
        out.append(contentsOf: #"","expiresAt":""#.utf8)
        timestamp(verification.expiresAt, into: &out)
        out.append(contentsOf: #"","id":"#.utf8)
        string(verification.id, into: &out)
        if let ref = verification.ref {
            out.append(contentsOf: #","ref":"#.utf8)
            string(ref, into: &out)
        }
        out.append(contentsOf: #","resendAvailableAt":"#.utf8)
        if let date = verification.resendAvailableAt {
            out.append(UInt8(ascii: "\""))
            timestamp(date, into: &out)
            out.append(UInt8(ascii: "\""))
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(contentsOf: #","sendsLeft":"#.utf8)
        number(verification.sendsLeft, into: &out)
        out.append(contentsOf: #","status":"#.utf8)
        string(verification.status.rawValue, into: &out)
        out.append(contentsOf: #","to":"#.utf8)
        string(verification.to, into: &out)
        if let transaction = verification.transaction {
            out.append(contentsOf: #","transaction":{"amount":"#.utf8)
            string(transaction.amount, into: &out)
            out.append(contentsOf: #","currency":"#.utf8)
            string(transaction.currency, into: &out)
            if let description = transaction.description {
                out.append(contentsOf: #","description":"#.utf8)
                string(description, into: &out)
            }
            out.append(contentsOf: #","payee":"#.utf8)
            string(transaction.payee, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Adds a string member at the end of a JSON object's bytes.
    static func add(_ name: String, _ value: String, to object: inout [UInt8]) {
        guard object.last == UInt8(ascii: "}") else { return }
        object.removeLast()
        object.append(contentsOf: ",".utf8)
        string(name, into: &object)
        object.append(UInt8(ascii: ":"))
        string(value, into: &object)
        object.append(UInt8(ascii: "}"))
    }

    /// An error body, `{"error":{…}}`.
    static func error(_ error: APIError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(160)
        out.append(contentsOf: #"{"error":{"attemptsLeft":"#.utf8)
        optional(error.attemptsLeft, into: &out)
        out.append(contentsOf: #","code":"#.utf8)
        string(error.code.rawValue, into: &out)
        out.append(contentsOf: #","message":"#.utf8)
        string(error.message, into: &out)
        if let reason = error.reason {
            out.append(contentsOf: #","reason":"#.utf8)
            string(reason, into: &out)
        }
        out.append(contentsOf: #","retryAfter":"#.utf8)
        optional(error.retryAfter, into: &out)
        out.append(contentsOf: "}}".utf8)
        return out
    }

    /// A time as `2026-11-30T07:00:30.250Z` (``WireJSON/timestamp(_:)``).
    static func timestamp(_ date: Date) -> String {
        WireJSON.timestamp(date)
    }

    private static func timestamp(_ date: Date, into out: inout [UInt8]) {
        WireJSON.timestamp(date, into: &out)
    }

    private static func number(_ value: Int, into out: inout [UInt8]) {
        WireJSON.number(value, into: &out)
    }

    private static func optional(_ value: Int?, into out: inout [UInt8]) {
        if let value { number(value, into: &out) } else { out.append(contentsOf: "null".utf8) }
    }

    /// A JSON string as Foundation's encoder writes it (``WireJSON/string(_:into:)``).
    static func string(_ value: String, into out: inout [UInt8]) {
        WireJSON.string(value, into: &out)
    }
}
