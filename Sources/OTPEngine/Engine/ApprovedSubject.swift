import OTPCore

/// What an approved verification proves: who was verified and for what, as an approval token says it.
///
/// It holds the full destination: hand it to a token signer, never to a log or a response.
public struct ApprovedSubject: Sendable, Equatable {
    /// The verification's identifier.
    public var id: String
    /// The channel the code went through.
    public var channel: Channel
    /// The verified destination: an E.164 phone number or an email address, as the start stored it.
    public var destination: String
    /// Whether the destination is one of the policy's test destinations, whose codes are fixed.
    public var isTest: Bool
    /// The caller's reference from the start.
    public var ref: String?
    /// The transaction the code approved.
    public var transaction: TransactionDetails?

    /// Creates a subject.
    public init(
        id: String, channel: Channel, destination: String, isTest: Bool, ref: String? = nil,
        transaction: TransactionDetails? = nil
    ) {
        self.id = id
        self.channel = channel
        self.destination = destination
        self.isTest = isTest
        self.ref = ref
        self.transaction = transaction
    }
}
