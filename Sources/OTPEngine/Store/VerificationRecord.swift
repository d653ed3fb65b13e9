import Foundation
import OTPCore

/// What a store keeps for one verification: everything but the code itself, which is only hashed.
public struct VerificationRecord: Sendable, Equatable {
    /// The stored part of a verification's state; `locked` and `expired` are read from the counters and the time.
    public enum State: String, Sendable, CaseIterable {
        /// A code is out; it may be locked or expired at a given time.
        case pending
        /// A right code was checked.
        case approved
        /// The verification was canceled, or its first code could not be delivered.
        case canceled
    }

    /// The verification's identifier.
    public var id: String
    /// The channel the codes go through.
    public var channel: Channel
    /// The full destination, needed to send a new code; never returned or logged.
    public var destination: String
    /// The number of characters in the code.
    public var codeLength: Int
    /// HMAC-SHA256 of the current code under the server's key.
    public var codeHash: [UInt8]
    /// The stored state.
    public var state: State
    /// Attempts left for the current code.
    public var attemptsLeft: Int
    /// Codes sent so far, the first included.
    public var sendsUsed: Int
    /// When the verification was started.
    public var createdAt: Date
    /// When the current code stops working.
    public var expiresAt: Date
    /// When the next resend is allowed, or `nil` when no sends are left.
    public var resendAvailableAt: Date?
    /// When the store may delete the record.
    public var purgeAt: Date
    /// A resend in progress: its code is being delivered and not yet stored.
    public var resendLease: ResendLease?
    /// The language of the verification's messages (`en`, `de`, `ar`, `ja`), or `nil` for the
    /// server's default.
    public var locale: String?
    /// The caller's opaque reference from the start, at most ``StartRequest/maxRefCharacters`` characters.
    public var ref: String?
    /// The transaction the codes approve; every code's hash covers it.
    public var transaction: TransactionDetails?

    /// Creates a record.
    public init(
        id: String, channel: Channel, destination: String, codeLength: Int, codeHash: [UInt8], state: State,
        attemptsLeft: Int, sendsUsed: Int, createdAt: Date, expiresAt: Date, resendAvailableAt: Date?,
        purgeAt: Date, resendLease: ResendLease? = nil, locale: String? = nil, ref: String? = nil,
        transaction: TransactionDetails? = nil
    ) {
        self.locale = locale
        self.ref = ref
        self.transaction = transaction
        self.id = id
        self.channel = channel
        self.destination = destination
        self.codeLength = codeLength
        self.codeHash = codeHash
        self.state = state
        self.attemptsLeft = attemptsLeft
        self.sendsUsed = sendsUsed
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.resendAvailableAt = resendAvailableAt
        self.purgeAt = purgeAt
        self.resendLease = resendLease
    }

    /// The status the API reports at a time: an expired code wins over a locked one.
    public func status(at now: Date) -> VerificationStatus {
        switch state {
        case .approved: return .approved
        case .canceled: return .canceled
        case .pending:
            if now >= expiresAt { return .expired }
            if attemptsLeft <= 0 { return .locked }
            return .pending
        }
    }
}

/// A claim on a verification's next send while its message is being delivered.
public struct ResendLease: Sendable, Equatable {
    /// A random token that only the claiming call knows.
    public var token: String
    /// When the claim lapses if the claiming call never finishes.
    public var until: Date

    /// Creates a lease.
    public init(token: String, until: Date) {
        self.token = token
        self.until = until
    }
}

/// The new code a finished resend puts in place.
public struct CodeUpdate: Sendable, Equatable {
    /// HMAC-SHA256 of the new code.
    public var codeHash: [UInt8]
    /// Attempts for the new code.
    public var attemptsLeft: Int
    /// Codes sent so far, this one included.
    public var sendsUsed: Int
    /// When the new code stops working.
    public var expiresAt: Date
    /// When the next resend is allowed, or `nil` when no sends are left.
    public var resendAvailableAt: Date?
    /// When the store may delete the record.
    public var purgeAt: Date

    /// Creates an update.
    public init(
        codeHash: [UInt8], attemptsLeft: Int, sendsUsed: Int, expiresAt: Date, resendAvailableAt: Date?,
        purgeAt: Date
    ) {
        self.codeHash = codeHash
        self.attemptsLeft = attemptsLeft
        self.sendsUsed = sendsUsed
        self.expiresAt = expiresAt
        self.resendAvailableAt = resendAvailableAt
        self.purgeAt = purgeAt
    }
}

extension TransactionDetails {
    /// A transaction as a store kept it: its canonical JSON.
    public static func stored(_ json: String) throws(StoreError) -> TransactionDetails {
        guard let transaction = try? JSONDecoder().decode(TransactionDetails.self, from: Data(json.utf8)),
            transaction.canonicalJSON == json
        else { throw StoreError("a stored transaction is not canonical JSON") }
        return transaction
    }
}
