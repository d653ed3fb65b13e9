/// A phone number as a ``PhoneNumberParser`` reads it: its E.164 form, and what the parser knows of it.
public struct PhoneNumber: Sendable, Hashable {
    /// The E.164 form: `+` and the digits, such as `+12015550123`.
    public var e164: String
    /// Whether the number can exist: its length and ranges fit its region's plan.
    public var isValid: Bool
    /// The ISO 3166 alpha-2 region (`US`, `GB`), `001` for a non-geographic number, or `nil`
    /// when the parser cannot tell.
    public var region: String?
    /// The kind of line, or `nil` when the parser cannot tell.
    public var type: PhoneNumberType?
    /// The international form with its usual grouping (`+1 201-555-0123`), or `nil` when the
    /// parser has none.
    public var international: String?

    /// Creates a parsed number.
    public init(
        e164: String, isValid: Bool, region: String? = nil, type: PhoneNumberType? = nil,
        international: String? = nil
    ) {
        self.e164 = e164
        self.isValid = isValid
        self.region = region
        self.type = type
        self.international = international
    }
}

/// The kinds of line a number plan tells apart (libphonenumber's types).
public enum PhoneNumberType: String, Sendable, Hashable, CaseIterable {
    /// A landline.
    case fixedLine = "fixed_line"
    /// A mobile line.
    case mobile
    /// A range where landlines and mobiles cannot be told apart (such as the United States).
    case fixedLineOrMobile = "fixed_line_or_mobile"
    /// A freephone number.
    case tollFree = "toll_free"
    /// A premium-rate number: the caller pays more.
    case premiumRate = "premium_rate"
    /// A shared-cost number.
    case sharedCost = "shared_cost"
    /// A voice over IP number.
    case voip
    /// A personal number, routed to a landline or a mobile.
    case personalNumber = "personal_number"
    /// A pager.
    case pager
    /// A universal access (company) number.
    case uan
    /// A voicemail access number.
    case voicemail
    /// A number of no known type.
    case unknown

    /// The types SMS go to when an operator names none: mobiles, ranges that may be mobile, VoIP
    /// and personal numbers; never premium rate, shared cost, toll free, UAN, pager, voicemail,
    /// landlines or unknown types.
    public static let smsDefault: Set<PhoneNumberType> = [
        .mobile, .fixedLineOrMobile, .voip, .personalNumber,
    ]
}

/// Reads phone numbers for the engine: the whole number plan (``PhoneNumber/isValid``, region,
/// type) or only the E.164 syntax.
///
/// `otp serve` uses libphonenumber (the `OTPPhoneNumbers` module); ``E164SyntaxParser`` is the
/// default of an embedded ``Verifier``.
public protocol PhoneNumberParser: Sendable {
    /// The number in `text` (after a `+` in international form, or national with `region`, an
    /// ISO 3166 alpha-2 hint), or `nil` when the text is no phone number at all.
    func parse(_ text: String, region: String?) -> PhoneNumber?
    /// The international form of a number kept as E.164, with the plan's grouping, or `nil`.
    func international(e164: String) -> String?
    /// The masked form of a number this parser just read: what ``masked(e164:)`` gives for its
    /// E.164 form. The default asks for the grouping again; a parser whose reading carries it
    /// (``PhoneNumber/international``, for valid numbers alone) answers from the number.
    func masked(_ number: PhoneNumber) -> String
}

extension PhoneNumberParser {
    /// The masked form of a number kept as E.164: the calling code and the last digits shown in
    /// the parser's international grouping (`+1 •••-•••-0123`), else ``Destination/mask(channel:address:)``'s.
    public func masked(e164: String) -> String {
        Destination.maskPhone(e164: e164, grouped: international(e164: e164))
    }

    /// ``masked(e164:)`` of the number's E.164 form.
    public func masked(_ number: PhoneNumber) -> String {
        masked(e164: number.e164)
    }

    /// The mask of a number from its own reading: grouped when it is valid and has an
    /// international form, else plain.
    package func maskedFromReading(_ number: PhoneNumber) -> String {
        Destination.maskPhone(e164: number.e164, grouped: number.isValid ? number.international : nil)
    }
}

/// The E.164 syntax alone: `+`, then 7–15 digits not starting with 0, after spaces, dashes and
/// parentheses are removed; every such number counts as valid, of no known region or type.
public struct E164SyntaxParser: PhoneNumberParser {
    /// Creates the parser.
    public init() {}

    /// The number, or `nil` when the text is not E.164; the region hint is not used.
    public func parse(_ text: String, region: String?) -> PhoneNumber? {
        guard let destination = try? Destination.parse(text, channel: .sms), destination.channel == .sms
        else {
            return nil
        }
        return PhoneNumber(e164: destination.address, isValid: true)
    }

    /// Always `nil`: the syntax knows no grouping.
    public func international(e164: String) -> String? { nil }
}
