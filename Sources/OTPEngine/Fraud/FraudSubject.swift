import OTPCore

/// What the pumping guard counts a start to one phone number under: its region, its prefix and
/// its channel.
///
/// The prefix is the calling code and the first N digits of the national significant number, with
/// N chosen by the national number's length (the numbering plan's length):
///
/// | national digits | N | example |
/// |---|---|---|
/// | 8 or fewer | 2 | `+37061` for `+37061234567` |
/// | 9 | 3 | `+33612` for `+33612345678` |
/// | 10 or more | 4 | `+14155` for `+14155550123`, `+447911` for `+447911123456` |
///
/// That is N = national digits − 6, kept between 2 and 4: deep enough to reach an operator's
/// range (a US area code and the exchange's first digit, a UK mobile block), shallow enough
/// that a range still gathers the sends the rule needs.
///
/// The region is the one the verifier's ``PhoneNumberParser`` reads from the number, passed in
/// through ``init(e164:channel:region:)``'s `region`: an ISO 3166 code with libphonenumber
/// (`LibPhoneNumberParser`, which `otp serve` uses), so `GB` for `+447400123456` and `GG` for
/// Guernsey's `+447911123456`, of the same calling code. A parser that knows no regions (the default
/// ``E164SyntaxParser``) leaves the calling code, written `+44` (``callingCodeRegion(of:)``).
public struct FraudSubject: Sendable, Hashable {
    /// The region the number belongs to: an ISO 3166 code from a parser, or `+` and the calling code.
    public var region: String
    /// The number's range: `+`, the calling code and the first national digits.
    public var prefix: String
    /// The channel the code goes by (only SMS is guarded).
    public var channel: Channel

    /// Creates a subject from its parts.
    public init(region: String, prefix: String, channel: Channel) {
        self.region = region
        self.prefix = prefix
        self.channel = channel
    }

    /// The subject of an E.164 number (`+` and digits); `region` is the parser's region when there
    /// is one, else the calling code's.
    ///
    /// The verifier passes the region its ``PhoneNumberParser`` finds for the number.
    public init(e164: String, channel: Channel = .sms, region: String? = nil) {
        self.init(
            region: region ?? Self.callingCodeRegion(of: e164), prefix: Self.prefix(of: e164),
            channel: channel)
    }

    /// The region of a number as the calling code gives it, `+` and the code: the region when the
    /// parser knows none.
    public static func callingCodeRegion(of e164: String) -> String {
        "+" + CallingCodes.callingCode(ofDigits: String(e164.drop { $0 == "+" }))
    }

    /// The prefix of an E.164 number by the rule above: `+`, the calling code, and N = national
    /// digits − 6 (between 2 and 4) national digits.
    public static func prefix(of e164: String) -> String {
        let digits = String(e164.drop { $0 == "+" })
        let code = CallingCodes.callingCode(ofDigits: digits)
        let national = digits.dropFirst(code.count)
        let depth = min(4, max(2, national.count - 6))
        return "+" + code + String(national.prefix(depth))
    }
}
