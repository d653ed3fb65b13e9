import OTPCore

/// How a store masks the destination of the lifecycle events it writes.
///
/// Events are made inside the store's own step (a check that approves, an expiry its sweep
/// finds), where no verifier is at hand, so the store is told once how to mask: ``plain``, or in
/// a phone number parser's international grouping (`+1 •••-•••-0123`), as the API's answers are.
public struct DestinationMasking: Sendable {
    private let phoneNumbers: (any PhoneNumberParser)?

    /// ``Destination/mask(channel:address:)``: the calling code, then the hidden digits in threes
    /// and the last four.
    public static let plain = DestinationMasking(parser: nil)

    /// Phone numbers in `parser`'s international grouping where it has one (a number it finds not
    /// valid keeps the plain mask); email addresses as ``plain`` masks them.
    public init(phoneNumbers parser: any PhoneNumberParser) {
        self.init(parser: parser)
    }

    private init(parser: (any PhoneNumberParser)?) {
        phoneNumbers = parser
    }

    /// The masked form of a stored destination.
    public func mask(channel: Channel, address: String) -> String {
        guard channel == .sms, let phoneNumbers else {
            return Destination.mask(channel: channel, address: address)
        }
        return phoneNumbers.masked(e164: address)
    }

    /// The masked form of a number its parser just read: what ``mask(channel:address:)`` gives for
    /// its E.164 form, from the reading where the parser can (``PhoneNumberParser/masked(_:)``).
    public func masked(_ number: PhoneNumber) -> String {
        guard let phoneNumbers else { return Destination.mask(channel: .sms, address: number.e164) }
        return phoneNumbers.masked(number)
    }
}
