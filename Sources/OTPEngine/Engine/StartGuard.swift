import OTPCore

/// What a start guard is told about a start, once the start's own rate limits have passed and
/// before anything is sent: never the full destination.
public struct GuardedStart: Sendable, Equatable, Encodable {
    /// `sms` or `email`.
    public var channel: Channel
    /// The destination's country calling code for a phone number, such as `1` or `44`.
    public var callingCode: String?
    /// The first three national digits of a phone number (after the calling code), such as `201`
    /// for `+1 201 555 0100`: with ``callingCode`` enough to judge a premium or high-cost range.
    public var nationalPrefix: String?
    /// A keyed hash of the full destination: 32 hex digits of HMAC-SHA256 under the server's key.
    ///
    /// The same destination always has the same hash, so a guard can count starts to one number
    /// without learning it; nobody without the secret can reverse it.
    public var destinationHash: String?
    /// Whether this is a resend (a new code for an existing verification) rather than a start.
    public var isResend: Bool
    /// The destination as the API shows it, such as `+1 ••• ••• 0100`.
    public var to: String
    /// The client's address.
    public var clientAddress: String
    /// The publishable key's name, or `nil` for a secret key.
    public var keyName: String?
    /// The client's proof from the start body, such as a CAPTCHA token or an App Attest assertion.
    public var proof: String?

    /// Creates the description of a start.
    public init(
        channel: Channel, callingCode: String?, to: String, clientAddress: String, keyName: String?,
        proof: String?, nationalPrefix: String? = nil, destinationHash: String? = nil, isResend: Bool = false
    ) {
        self.nationalPrefix = nationalPrefix
        self.destinationHash = destinationHash
        self.isResend = isResend
        self.channel = channel
        self.callingCode = callingCode
        self.to = to
        self.clientAddress = clientAddress
        self.keyName = keyName
        self.proof = proof
    }
}

/// A guard's answer.
public enum StartGuardVerdict: Sendable, Equatable {
    /// Send the code.
    case allow
    /// Send nothing; the start answers 403 `start_refused` with the reason.
    case refuse(reason: String)
    /// The guard could not answer in time (down, slow, or an answer that is not one); what then
    /// happens depends on `StartGuardSettings.failOpen` (in `OTPHTTP`).
    case unavailable(String)
}

/// A guard as the engine asks it, once a start's rate limits have passed: the verdict on a start.
///
/// The HTTP front makes one per request: it adds the request's proof, counts the verdict, and
/// turns an unavailable guard into `allow` when it fails open.
public typealias StartScreen = @Sendable (GuardedStart) async -> StartGuardVerdict

/// Judges starts before a code is paid for: the operator's check of a CAPTCHA, an App Attest
/// assertion or a Play Integrity token.
public protocol StartGuard: Sendable {
    /// The verdict on one start; it must answer within its own timeout.
    func judge(_ start: GuardedStart) async -> StartGuardVerdict
}
