import Foundation

/// The state of a verification, as the server reports it.
///
/// Closed on purpose: the states are those of HTTP API version 1; another state would be a new
/// version of the API.
public enum VerificationStatus: String, Codable, Sendable, CaseIterable {
    /// A code was sent and can still be checked.
    case pending
    /// A right code was checked; the verification is done.
    case approved
    /// The current code has no attempts left; a resend unlocks it.
    case locked
    /// The current code's lifetime has passed.
    case expired
    /// The verification was canceled and accepts nothing more.
    case canceled
}

/// The way a code travels to its owner.
///
/// Closed on purpose within HTTP API version 1: a server offering another channel (voice, a
/// messaging app) would do so under a new API version, with a new case here.
public enum Channel: String, Codable, Sendable, CaseIterable {
    /// A text message to a phone number.
    case sms
    /// An email message.
    case email
}

/// The verification object of the HTTP API, version 1.
///
/// The full destination and the code never appear in it: `to` is masked.
public struct Verification: Codable, Sendable, Equatable, Hashable {
    /// The verification's identifier, URL-safe and unguessable.
    public var id: String
    /// The verification's current status.
    public var status: VerificationStatus
    /// The channel the code was sent through.
    public var channel: Channel
    /// The masked destination, such as `+1 ••• ••• 0100`.
    public var to: String
    /// The number of characters in the code.
    public var codeLength: Int
    /// Attempts left for the current code.
    public var attemptsLeft: Int
    /// Further sends this verification allows.
    public var sendsLeft: Int
    /// When the current code stops working.
    public var expiresAt: Date
    /// When a resend becomes possible, or `nil` when no sends are left.
    public var resendAvailableAt: Date?
    /// When the verification was started.
    public var createdAt: Date

    /// The signed approval token of an approving check made with a publishable key, else `nil`.
    ///
    /// Hand it to the app's own backend, which verifies it offline.
    public var approvalToken: String?

    /// The caller's opaque reference given at the start (such as its user or sign-in attempt id), or `nil`.
    public var ref: String?

    /// The transaction the code approves, when the start named one (V16), else `nil`.
    public var transaction: TransactionDetails?

    /// Creates a verification object.
    public init(
        id: String, status: VerificationStatus, channel: Channel, to: String, codeLength: Int,
        attemptsLeft: Int, sendsLeft: Int, expiresAt: Date, resendAvailableAt: Date?, createdAt: Date,
        approvalToken: String? = nil, ref: String? = nil, transaction: TransactionDetails? = nil
    ) {
        self.approvalToken = approvalToken
        self.ref = ref
        self.transaction = transaction
        self.id = id
        self.status = status
        self.channel = channel
        self.to = to
        self.codeLength = codeLength
        self.attemptsLeft = attemptsLeft
        self.sendsLeft = sendsLeft
        self.expiresAt = expiresAt
        self.resendAvailableAt = resendAvailableAt
        self.createdAt = createdAt
    }

    private enum CodingKeys: String, CodingKey {
        case id, status, channel, to, codeLength, attemptsLeft, sendsLeft, expiresAt, resendAvailableAt
        case createdAt, approvalToken, ref, transaction
    }

    /// Encodes the object, writing `resendAvailableAt` as `null` when absent.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(status, forKey: .status)
        try container.encode(channel, forKey: .channel)
        try container.encode(to, forKey: .to)
        try container.encode(codeLength, forKey: .codeLength)
        try container.encode(attemptsLeft, forKey: .attemptsLeft)
        try container.encode(sendsLeft, forKey: .sendsLeft)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(resendAvailableAt, forKey: .resendAvailableAt)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(approvalToken, forKey: .approvalToken)
        try container.encodeIfPresent(ref, forKey: .ref)
        try container.encodeIfPresent(transaction, forKey: .transaction)
    }
}
