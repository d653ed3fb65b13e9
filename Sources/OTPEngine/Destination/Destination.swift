import OTPCore

/// A parsed destination: an E.164 phone number for SMS or an email address.
///
/// The full address is for senders only; responses carry ``masked``.
public struct Destination: Sendable, Hashable {
    /// The longest destination accepted, in UTF-8 bytes.
    public static let maximumLength = 254

    /// The channel the destination belongs to.
    public let channel: Channel
    /// The full address: `+15550100` or `ana@example.org` (domain lower-cased).
    public let address: String
    /// A phone number's ISO 3166 alpha-2 region as the ``PhoneNumberParser`` read it from the
    /// number (never from a hint), or `nil` for email and when the parser cannot tell.
    public internal(set) var region: String? = nil
    /// A phone number's type as the ``PhoneNumberParser`` read it, or `nil`.
    public internal(set) var numberType: PhoneNumberType? = nil

    /// Parses a destination the way the API does, inferring the channel from an `@`.
    ///
    /// Phone numbers are E.164 after removing spaces, dashes and parentheses: `+`, then
    /// 7–15 digits not starting with 0. Emails have one `@`, a local part, and a domain
    /// with a dot inside. A `channel` that differs from the destination's kind is
    /// `destinationChannelMismatch`; anything else malformed is `invalidDestination`.
    public static func parse(_ text: String, channel: Channel?) throws(VerifierError) -> Destination {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty, trimmed.utf8.count <= maximumLength else { throw Self.invalid }
        let kind: Channel = trimmed.utf8.contains(UInt8(ascii: "@")) ? .email : .sms
        let parsed: Destination? =
            kind == .email ? parseEmail(trimmed) : parsePhone(trimmed)
        guard let parsed else { throw Self.invalid }
        if let channel, channel != kind {
            throw .destinationChannelMismatch(destination: kind)
        }
        return parsed
    }

    /// The masked form: `+1 ••• ••• 0100` or `a•••@example.org`.
    public var masked: String { Self.mask(channel: channel, address: address) }

    /// The country calling code of a phone number (such as `"1"` or `"44"`), `nil` for email.
    public var callingCode: String? {
        guard channel == .sms else { return nil }
        return CallingCodes.callingCode(ofDigits: String(address.dropFirst()))
    }

    /// The form rate limits count by (see ``limitKey(channel:address:)``).
    var limitKey: String {
        Self.limitKey(channel: channel, address: address)
    }

    /// The form rate limits count a stored destination by: for email, lower-cased and without a
    /// `+tag` in the local part, so `Victim+1@Example.org` counts as `victim@example.org`.
    ///
    /// Mail providers deliver every `+tag` variant to the same mailbox; without this, each
    /// variant would get its own starts and failed checks.
    public static func limitKey(channel: Channel, address: String) -> String {
        guard channel == .email else { return address }
        let lowered = address.lowercased()
        guard let at = lowered.lastIndex(of: "@") else { return lowered }
        let local = lowered[..<at]
        guard let plus = local.firstIndex(of: "+"), plus != local.startIndex else { return lowered }
        return String(local[..<plus]) + lowered[at...]
    }

    /// The masked form of a stored destination.
    public static func mask(channel: Channel, address: String) -> String {
        channel == .sms ? maskPlainPhone(address) : maskEmail(address)
    }

    private static let invalid = VerifierError.invalidDestination

    private static func parsePhone(_ text: String) -> Destination? {
        // On bytes: a number is ASCII, so any other byte leaves a non-digit behind and fails below.
        var kept: [UInt8] = []
        kept.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "("), UInt8(ascii: ")"),
                UInt8(ascii: "\t"):
                continue
            default:
                kept.append(byte)
            }
        }
        guard kept.first == UInt8(ascii: "+") else { return nil }
        let digits = kept.dropFirst()
        guard (7...15).contains(digits.count),
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            digits.first != UInt8(ascii: "0")
        else { return nil }
        return Destination(channel: .sms, address: String(decoding: kept, as: UTF8.self))
    }

    private static func parseEmail(_ text: String) -> Destination? {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let local = parts[0]
        let domain = parts[1].lowercased()
        guard !local.isEmpty, local.utf8.count <= 64, !local.hasPrefix("."), !local.hasSuffix("."),
            !local.contains("..")
        else { return nil }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2,
            labels.allSatisfy({ !$0.isEmpty && !$0.hasPrefix("-") && !$0.hasSuffix("-") })
        else { return nil }
        let forbidden = Set(" \t\"(),:;<>[\\]".unicodeScalars)
        let allowed = { (scalar: Unicode.Scalar) in
            !forbidden.contains(scalar) && !scalar.properties.isWhitespace
                && scalar.properties.generalCategory != .control
                && scalar.properties.generalCategory != .format
        }
        guard local.unicodeScalars.allSatisfy(allowed), domain.unicodeScalars.allSatisfy(allowed) else {
            return nil
        }
        return Destination(channel: .email, address: "\(local)@\(domain)")
    }

    private static func maskPlainPhone(_ address: String) -> String {
        let digits = Array(address.utf8.dropFirst())
        let codeLength = CallingCodes.callingCodeLength(ofDigits: digits)
        let nationalCount = digits.count - codeLength
        // Keep the last four digits while at least three stay hidden.
        let shown = min(4, max(0, nationalCount - 3))
        var out: [UInt8] = [UInt8(ascii: "+")]
        out.reserveCapacity(40)
        out.append(contentsOf: digits[..<codeLength])
        var left = nationalCount - shown
        while left > 0 {
            out.append(UInt8(ascii: " "))
            for _ in 0..<min(3, left) { out.append(contentsOf: "•".utf8) }
            left -= 3
        }
        if shown > 0 {
            out.append(UInt8(ascii: " "))
            out.append(contentsOf: digits[(digits.count - shown)...])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The masked form of a phone number in a grouped international form (`+1 201-555-0123`):
    /// the calling code and the separators kept, the national digits hidden but the last ones,
    /// as ``mask(channel:address:)`` hides them (`+1 •••-•••-0123`).
    ///
    /// `grouped` must hold the digits of `e164` in order; otherwise the ungrouped mask is returned.
    public static func maskGrouped(_ grouped: String, e164: String) -> String {
        let digits = Array(e164.utf8.dropFirst())
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        guard e164.first == "+", Self.digits(of: grouped, are: digits) else { return maskPlainPhone(e164) }
        let codeLength = CallingCodes.callingCodeLength(ofDigits: digits)
        let nationalCount = digits.count - codeLength
        let shown = min(4, max(0, nationalCount - 3))
        var out: [UInt8] = []
        out.reserveCapacity(grouped.utf8.count * 2)
        var index = 0
        for byte in grouped.utf8 {
            guard isDigit(byte) else {
                out.append(byte)
                continue
            }
            let national = index - codeLength
            if national >= 0 && national < nationalCount - shown {
                out.append(contentsOf: "•".utf8)
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The mask of an E.164 number: in `grouped`, its international form, when there is one, else
    /// the plain one ``mask(channel:address:)`` gives.
    static func maskPhone(e164: String, grouped: String?) -> String {
        guard let grouped else { return maskPlainPhone(e164) }
        return maskGrouped(grouped, e164: e164)
    }

    /// Whether `text`'s digits, its other characters skipped, are `digits` in order.
    private static func digits(of text: String, are digits: [UInt8]) -> Bool {
        var index = 0
        for byte in text.utf8 where byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
            guard index < digits.count, digits[index] == byte else { return false }
            index += 1
        }
        return index == digits.count
    }

    private static func maskEmail(_ address: String) -> String {
        guard let at = address.lastIndex(of: "@"), let first = address.first else { return "•••" }
        return "\(first)•••\(address[at...])"
    }
}

extension String {
    func trimmingWhitespace() -> String {
        // Most text has nothing to trim: the same string back, without a copy. A printable ASCII
        // byte other than a space is no whitespace, and is told so without Unicode's tables.
        func isKept(_ scalar: Unicode.Scalar?) -> Bool {
            guard let scalar else { return false }
            if scalar.value > 0x20 && scalar.value < 0x7F { return true }
            return !scalar.properties.isWhitespace
        }
        if isKept(unicodeScalars.first), isKept(unicodeScalars.last) { return self }
        var scalars = Substring(self).unicodeScalars
        while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
