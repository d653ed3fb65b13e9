import OTPCore

/// Why the engine refused or could not answer a request: a kind and the facts that go with it.
///
/// The engine says what happened (attempts left, how long to wait, the store's or the
/// provider's own error), never how to say it: the HTTP front maps each kind to a status,
/// an API error code and a sentence in one place.
///
/// ```swift
/// do {
///     _ = try await verifier.check(id: id, code: code, clientAddress: address)
/// } catch where error.kind == .incorrectCode {
///     print("\(error.attemptsLeft ?? 0) attempts left")
/// }
/// ```
public struct VerifierError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal or failure; new kinds may be added, so switch with a default.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable, Hashable {
            case notFound, notPending, expired, locked, incorrectCode, invalidCodeFormat
            case rateLimited, resendTooSoon, maxSendsReached, deliveryFailed
            case invalidDestination, destinationChannelMismatch, channelNotSupported, callingCodeNotAllowed
            case invalidIdempotencyKey, idempotencyKeyReused, storeUnavailable, internalFailure
            case codeAlreadyUsed, invalidRef, invalidTransaction, startRefused, startGuardUnavailable
            case factorNotConfirmed, destinationNotAllowed, destinationBlocked
        }

        fileprivate let base: Base

        /// No verification has the identifier (or it was purged).
        public static let notFound = Kind(base: .notFound)
        /// The verification is approved or canceled.
        public static let notPending = Kind(base: .notPending)
        /// The current code's lifetime has passed.
        public static let expired = Kind(base: .expired)
        /// The current code has no attempts left.
        public static let locked = Kind(base: .locked)
        /// The code was wrong; one attempt was used.
        public static let incorrectCode = Kind(base: .incorrectCode)
        /// The code cannot be one of this verification's codes; no attempt was used.
        public static let invalidCodeFormat = Kind(base: .invalidCodeFormat)
        /// A rate limit or the global send cap refused the request.
        public static let rateLimited = Kind(base: .rateLimited)
        /// The resend cooldown (or another resend in progress) has not run out.
        public static let resendTooSoon = Kind(base: .resendTooSoon)
        /// Every send of the verification is used.
        public static let maxSendsReached = Kind(base: .maxSendsReached)
        /// The provider refused the message or could not be reached.
        public static let deliveryFailed = Kind(base: .deliveryFailed)
        /// The destination is neither an E.164 phone number nor an email address.
        public static let invalidDestination = Kind(base: .invalidDestination)
        /// The channel asked for does not fit the destination (SMS to an email address).
        public static let destinationChannelMismatch = Kind(base: .destinationChannelMismatch)
        /// The channel is turned off on this server.
        public static let channelNotSupported = Kind(base: .channelNotSupported)
        /// SMS to the destination's country calling code is not allowed.
        public static let callingCodeNotAllowed = Kind(base: .callingCodeNotAllowed)
        /// The phone number's region or type may not take SMS here; ``VerifierError/refusal`` says which.
        public static let destinationNotAllowed = Kind(base: .destinationNotAllowed)
        /// The idempotency key is not 1–255 printable ASCII characters.
        public static let invalidIdempotencyKey = Kind(base: .invalidIdempotencyKey)
        /// The idempotency key was used with a different request body.
        public static let idempotencyKeyReused = Kind(base: .idempotencyKeyReused)
        /// The store failed or did not answer in time; ``VerifierError/storeError`` says how.
        public static let storeUnavailable = Kind(base: .storeUnavailable)
        /// Something inside the engine failed (the crypto library).
        public static let internalFailure = Kind(base: .internalFailure)
        /// An authenticator code was already accepted for its time step (a replay).
        public static let codeAlreadyUsed = Kind(base: .codeAlreadyUsed)

        /// The start's `ref` is empty, over ``StartRequest/maxRefCharacters`` characters, or holds
        /// control characters.
        public static let invalidRef = Kind(base: .invalidRef)
        /// The start's transaction breaks a rule of ``TransactionDetails/problem``.
        public static let invalidTransaction = Kind(base: .invalidTransaction)

        /// The start guard refused the start (or the resend); ``VerifierError/reason`` says why.
        public static let startRefused = Kind(base: .startRefused)
        /// The start guard did not answer in time, and starts are refused then.
        public static let startGuardUnavailable = Kind(base: .startGuardUnavailable)

        /// The authenticator factor has not been confirmed by a first right code.
        public static let factorNotConfirmed = Kind(base: .factorNotConfirmed)

        /// The pumping guard blocks the destination's prefix or region; ``VerifierError/reason``
        /// says why (`pumping`) and ``VerifierError/retryAfter`` until when.
        public static let destinationBlocked = Kind(base: .destinationBlocked)

        /// The kind's name, such as `incorrectCode`.
        public var description: String { base.rawValue }
    }

    /// Which rate limit refused a request.
    public struct Limit: Sendable, Hashable, CustomStringConvertible {
        /// The limit's name, as metrics and logs show it: `starts_per_destination`, `global_sends`, ….
        public let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// ``Policy/startsPerDestination``.
        public static let startsPerDestination = Limit("starts_per_destination")
        /// ``Policy/startsPerAddress``.
        public static let startsPerAddress = Limit("starts_per_address")
        /// ``Policy/ownerStartsPerAddress``.
        public static let ownerStartsPerAddress = Limit("publishable_starts_per_address")
        /// ``Policy/startsPerAddress``, counted per ``EndUser/deviceId``.
        public static let startsPerDevice = Limit("starts_per_device")
        /// ``Policy/checksPerAddress``.
        public static let checksPerAddress = Limit("checks_per_address")
        /// ``Policy/failedChecksPerDestination``.
        public static let failedChecksPerDestination = Limit("failed_checks_per_destination")
        /// ``Policy/failedChecksPerDestinationAndAddress``.
        public static let failedChecksPerDestinationAndAddress = Limit(
            "failed_checks_per_destination_and_address")
        /// ``Policy/globalSendsPerHour``: the server's whole sending budget.
        public static let globalSends = Limit("global_sends")
        /// ``Policy/sendsPerCallingCodePerHour``: one country's share of it.
        public static let sendsPerCallingCode = Limit("sends_per_calling_code")

        /// Whether it caps what the server sends in all, rather than what one client or destination asks.
        public var isSendCap: Bool { self == .globalSends || self == .sendsPerCallingCode }

        /// The name.
        public var description: String { name }
    }

    /// Which step of a verification a failed delivery belonged to.
    public enum Step: Sendable, Hashable {
        /// The first code, sent by a start.
        case start
        /// A later code, sent by a resend.
        case resend
    }

    /// Attempts the current code has left, when the answer tells them.
    public let attemptsLeft: Int?
    /// What kind of refusal or failure.
    public let kind: Kind
    /// Every other fact, for the kinds that have one; `nil` for most answers, a wrong code among them.
    ///
    /// Kept out of line so that an error is three words (24 bytes): a check's answer is passed and
    /// copied on the hot path, and a wide error would make every copy of it a call to `memcpy`.
    private let details: Details?

    /// How long to wait before the same request can succeed, for rate limits, cooldowns and used-up sends.
    public var retryAfter: Duration? { details?.retryAfter }
    /// The format a malformed code did not fit.
    public var codeFormat: CodeFormat? { details?.codeFormat }
    /// The channel concerned: the one turned off, or the destination's own for a mismatch.
    public var channel: Channel? { details?.channel }
    /// The step whose delivery failed.
    public var step: Step? { details?.step }
    /// The store's own error, for ``Kind/storeUnavailable``.
    public var storeError: StoreError? { details?.storeError }
    /// The provider's own error, for ``Kind/deliveryFailed``.
    public var deliveryError: DeliveryError? { details?.deliveryError }
    /// The limit that refused the request, for ``Kind/rateLimited``.
    public var limit: Limit? { details?.limit }
    /// The start guard's reason, for ``Kind/startRefused`` (its own words, at most 200 characters),
    /// or the ``DestinationRefusal`` raw value for ``Kind/destinationNotAllowed``.
    public var reason: String? { details?.reason }
    /// Why a destination was refused, for ``Kind/destinationNotAllowed``.
    public var refusal: DestinationRefusal? {
        kind == .destinationNotAllowed ? reason.flatMap(DestinationRefusal.init(rawValue:)) : nil
    }

    /// Why a phone number may not take SMS here.
    public enum DestinationRefusal: String, Sendable, Hashable, CaseIterable {
        /// Its region is not among ``Policy/allowedRegions``.
        case region
        /// Its type is not among ``Policy/smsNumberTypes``.
        case numberType = "number_type"
    }

    /// The facts besides the kind and the attempts left; never changed once made.
    private final class Details: Sendable, Equatable {
        let retryAfter: Duration?
        let codeFormat: CodeFormat?
        let channel: Channel?
        let step: Step?
        let storeError: StoreError?
        let deliveryError: DeliveryError?
        let limit: Limit?
        let reason: String?

        init(
            retryAfter: Duration?, codeFormat: CodeFormat?, channel: Channel?, step: Step?,
            storeError: StoreError?, deliveryError: DeliveryError?, limit: Limit?, reason: String?
        ) {
            self.reason = reason
            self.retryAfter = retryAfter
            self.codeFormat = codeFormat
            self.channel = channel
            self.step = step
            self.storeError = storeError
            self.deliveryError = deliveryError
            self.limit = limit
        }

        static func == (left: Details, right: Details) -> Bool {
            left.retryAfter == right.retryAfter && left.codeFormat == right.codeFormat
                && left.channel == right.channel && left.step == right.step
                && left.storeError == right.storeError && left.deliveryError == right.deliveryError
                && left.limit == right.limit && left.reason == right.reason
        }
    }

    private init(
        _ kind: Kind, attemptsLeft: Int? = nil, retryAfter: Duration? = nil, codeFormat: CodeFormat? = nil,
        channel: Channel? = nil, step: Step? = nil, storeError: StoreError? = nil,
        deliveryError: DeliveryError? = nil, limit: Limit? = nil, reason: String? = nil
    ) {
        // An error without facts keeps no box, and makes none.
        guard
            retryAfter != nil || codeFormat != nil || channel != nil || step != nil || storeError != nil
                || deliveryError != nil || limit != nil || reason != nil
        else {
            self.init(kind, attemptsLeft: attemptsLeft, details: nil)
            return
        }
        let details = Details(
            retryAfter: retryAfter.map { max(.zero, $0) }, codeFormat: codeFormat, channel: channel,
            step: step, storeError: storeError, deliveryError: deliveryError, limit: limit, reason: reason)
        self.init(kind, attemptsLeft: attemptsLeft, details: details)
    }

    private init(_ kind: Kind, attemptsLeft: Int?, details: Details?) {
        self.kind = kind
        self.attemptsLeft = attemptsLeft.map { max(0, $0) }
        self.details = details
    }

    /// Two errors are equal when their kinds and every fact are.
    public static func == (left: VerifierError, right: VerifierError) -> Bool {
        guard left.kind == right.kind, left.attemptsLeft == right.attemptsLeft else { return false }
        switch (left.details, right.details) {
        case (nil, nil): return true
        case (let left?, let right?): return left == right
        default: return false
        }
    }

    /// The kind and its facts, for logs: never a code or a destination.
    public var description: String {
        var parts = [kind.description]
        if let attemptsLeft { parts.append("attemptsLeft=\(attemptsLeft)") }
        if let retryAfter { parts.append("retryAfter=\(retryAfter)") }
        if let channel { parts.append("channel=\(channel.rawValue)") }
        if let limit { parts.append("limit=\(limit)") }
        if let refusal { parts.append("refusal=\(refusal.rawValue)") }
        if let storeError { parts.append("store: \(storeError)") }
        if let deliveryError { parts.append("delivery: \(deliveryError)") }
        return parts.joined(separator: " ")
    }

    /// No such verification.
    public static let notFound = VerifierError(.notFound)
    /// The verification is approved or canceled.
    public static let notPending = VerifierError(.notPending)
    /// The current code has no attempts left.
    public static let locked = VerifierError(.locked, attemptsLeft: 0)
    /// The authenticator code was already accepted for its time step.
    public static let codeAlreadyUsed = VerifierError(.codeAlreadyUsed)
    /// The idempotency key is malformed.
    public static let invalidIdempotencyKey = VerifierError(.invalidIdempotencyKey)
    /// The idempotency key was used with another body.
    public static let idempotencyKeyReused = VerifierError(.idempotencyKeyReused)
    /// SMS to this country calling code is not allowed.
    public static let callingCodeNotAllowed = VerifierError(.callingCodeNotAllowed, channel: .sms)
    /// The destination is malformed.
    public static let invalidDestination = VerifierError(.invalidDestination)
    /// The start's `ref` is not 1 to 128 characters without control characters.
    public static let invalidRef = VerifierError(.invalidRef)
    /// The start's transaction is malformed.
    public static let invalidTransaction = VerifierError(.invalidTransaction)
    /// The crypto library failed.
    public static let internalFailure = VerifierError(.internalFailure)

    /// The code expired with attempts left.
    public static func expired(attemptsLeft: Int) -> VerifierError {
        VerifierError(.expired, attemptsLeft: attemptsLeft)
    }

    /// A check of an approved or canceled verification, with the attempts its code had left.
    public static func notPending(attemptsLeft: Int) -> VerifierError {
        VerifierError(.notPending, attemptsLeft: attemptsLeft, details: nil)
    }

    /// A wrong code; at zero attempts left the verification reads locked.
    public static func incorrectCode(attemptsLeft: Int) -> VerifierError {
        VerifierError(.incorrectCode, attemptsLeft: attemptsLeft, details: nil)
    }

    /// A code that does not fit the verification's format.
    public static func invalidCodeFormat(_ format: CodeFormat, attemptsLeft: Int) -> VerifierError {
        VerifierError(.invalidCodeFormat, attemptsLeft: attemptsLeft, codeFormat: format)
    }

    /// A rate limit refused the request; `attemptsLeft` is set for checks.
    public static func rateLimited(
        retryAfter: Duration, attemptsLeft: Int? = nil, limit: Limit? = nil
    ) -> VerifierError {
        VerifierError(.rateLimited, attemptsLeft: attemptsLeft, retryAfter: retryAfter, limit: limit)
    }

    /// The resend cooldown runs for `retryAfter` more.
    public static func resendTooSoon(retryAfter: Duration) -> VerifierError {
        VerifierError(.resendTooSoon, retryAfter: retryAfter)
    }

    /// No sends are left; the current code expires in `retryAfter`.
    public static func maxSendsReached(retryAfter: Duration) -> VerifierError {
        VerifierError(.maxSendsReached, retryAfter: retryAfter)
    }

    /// The provider failed during a step.
    public static func deliveryFailed(_ step: Step, _ error: DeliveryError? = nil) -> VerifierError {
        VerifierError(.deliveryFailed, step: step, deliveryError: error)
    }

    /// The channel is off on this server.
    public static func channelNotSupported(_ channel: Channel) -> VerifierError {
        VerifierError(.channelNotSupported, channel: channel)
    }

    /// The channel asked for does not fit a destination of channel `destination`.
    public static func destinationChannelMismatch(destination: Channel) -> VerifierError {
        VerifierError(.destinationChannelMismatch, channel: destination)
    }

    /// The start guard refused, for `reason` (empty when it gave none).
    public static func startRefused(reason: String) -> VerifierError {
        VerifierError(.startRefused, reason: String(reason.prefix(200)))
    }

    /// The destination's region or number type may not take SMS.
    public static func destinationNotAllowed(_ refusal: DestinationRefusal) -> VerifierError {
        VerifierError(.destinationNotAllowed, channel: .sms, reason: refusal.rawValue)
    }

    /// The pumping guard blocks the destination for `retryAfter` more, for `reason` (`pumping`).
    public static func destinationBlocked(retryAfter: Duration, reason: String) -> VerifierError {
        VerifierError(.destinationBlocked, retryAfter: retryAfter, reason: reason)
    }

    /// The authenticator factor is not confirmed yet.
    public static let factorNotConfirmed = VerifierError(.factorNotConfirmed)

    /// The start guard did not answer in time.
    public static let startGuardUnavailable = VerifierError(.startGuardUnavailable)

    /// The store failed.
    public static func storeUnavailable(_ error: StoreError? = nil) -> VerifierError {
        VerifierError(.storeUnavailable, storeError: error)
    }

    /// A copy with the attempts left set, for refusals that come after the record was read.
    func with(attemptsLeft: Int) -> VerifierError {
        VerifierError(kind, attemptsLeft: attemptsLeft, details: details)
    }
}
