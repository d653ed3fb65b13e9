/// What the verification screen needs from a server: start, check and resend.
///
/// `OTPClient.VerificationClient` implements it over HTTP;
/// ``PreviewVerificationService`` implements it in memory.
public protocol VerificationService: Sendable {
    /// Starts a verification and sends the first code to a phone number or email address.
    func start(to destination: String, channel: Channel?) async throws(VerificationFailure) -> Verification
    /// Checks a code; returns the approved verification or throws why not.
    func check(id: String, code: String) async throws(VerificationFailure) -> Verification
    /// Sends a new code; the old one stops working and attempts reset.
    func resend(id: String) async throws(VerificationFailure) -> Verification

    /// Starts a verification whose message speaks `locale` (a catalog language, such as `de`);
    /// answers with the server's time, which the screen measures expiry and countdowns from (V13).
    func startAnswer(
        to destination: String, channel: Channel?, locale: String?
    ) async throws(VerificationFailure) -> ServerAnswer
    /// Starts like ``startAnswer(to:channel:locale:)``, with `country` (ISO 3166 alpha-2, such as
    /// `GB`) as the region a phone number written in national format is read in.
    func startAnswer(
        to destination: String, channel: Channel?, locale: String?, country: String?
    ) async throws(VerificationFailure) -> ServerAnswer
    /// Checks a code; answers with the server's time (V13).
    func checkAnswer(id: String, code: String) async throws(VerificationFailure) -> ServerAnswer
    /// Sends a new code; answers with the server's time (V13).
    func resendAnswer(id: String) async throws(VerificationFailure) -> ServerAnswer
    /// The verification as the server holds it now; answers with the server's time (V13). The
    /// screen asks after an answer it lost: a check the server took (`not_pending` on the retry),
    /// a resend whose answer never came.
    func statusAnswer(id: String) async throws(VerificationFailure) -> ServerAnswer
}

extension VerificationService {
    /// Starts without a locale and without the server's time; a service that knows either says so.
    public func startAnswer(
        to destination: String, channel: Channel?, locale: String?
    ) async throws(VerificationFailure) -> ServerAnswer {
        ServerAnswer(try await start(to: destination, channel: channel), serverDate: nil)
    }

    /// Starts without the country hint, for a service that has no use for it: the number goes as it
    /// is, and a national number is refused as any number the service cannot read.
    public func startAnswer(
        to destination: String, channel: Channel?, locale: String?, country: String?
    ) async throws(VerificationFailure) -> ServerAnswer {
        try await startAnswer(to: destination, channel: channel, locale: locale)
    }

    /// Checks without the server's time.
    public func checkAnswer(id: String, code: String) async throws(VerificationFailure) -> ServerAnswer {
        ServerAnswer(try await check(id: id, code: code), serverDate: nil)
    }

    /// Resends without the server's time.
    public func resendAnswer(id: String) async throws(VerificationFailure) -> ServerAnswer {
        ServerAnswer(try await resend(id: id), serverDate: nil)
    }

    /// A service that cannot look a verification up answers `networkFailure`: the screen then
    /// keeps what it showed.
    public func statusAnswer(id: String) async throws(VerificationFailure) -> ServerAnswer {
        throw .networkFailure
    }
}

/// Why a service call did not succeed, mirroring the HTTP API's answers.
///
/// Closed on purpose: a screen switches over it exhaustively, so each case has a fixed UX rule.
/// An error code this version does not know arrives as ``other(code:message:)``, never as a new case.
public enum VerificationFailure: Error, Sendable, Equatable {
    /// The code is wrong; `attemptsLeft` remain for it (0 means now locked).
    case incorrectCode(attemptsLeft: Int)
    /// The current code has no attempts left.
    case locked
    /// The current code's lifetime has passed.
    case expired
    /// The verification is approved or canceled.
    case notPending
    /// No such verification.
    case notFound
    /// A rate limit was reached; try again after that many seconds.
    case rateLimited(retryAfter: Int)
    /// The resend cooldown runs for that many more seconds.
    case resendTooSoon(retryAfter: Int)
    /// No sends are left for this verification.
    case maxSendsReached
    /// The code does not have the format's length.
    case invalidCodeFormat
    /// An authenticator code already accepted for its time step (409 `code_already_used`).
    case codeAlreadyUsed
    /// The destination is not a phone number or email address the server accepts.
    case invalidDestination
    /// The server does not send to this destination: its kind of number or region
    /// (`destination_not_allowed`), or the channel there (`channel_not_supported`).
    case destinationRefused
    /// Sends to this destination are paused for that many seconds (`destination_blocked`).
    case destinationBlocked(retryAfter: Int)
    /// The server's start guard refused the start (`start_refused`).
    case startRefused
    /// The provider could not deliver the code.
    case deliveryFailed
    /// The server could not be reached, or its answer could not be read.
    case networkFailure
    /// Any other answer of the server, by error code and message.
    case server(code: OTPErrorCode, message: String)

    /// Maps an API error to a failure.
    public init(_ error: APIError) {
        switch error.code {
        case .incorrectCode: self = .incorrectCode(attemptsLeft: error.attemptsLeft ?? 0)
        case .locked: self = .locked
        case .expired: self = .expired
        case .notPending: self = .notPending
        case .notFound: self = .notFound
        case .rateLimited: self = .rateLimited(retryAfter: error.retryAfter ?? 1)
        case .resendTooSoon: self = .resendTooSoon(retryAfter: error.retryAfter ?? 1)
        case .maxSendsReached: self = .maxSendsReached
        case .invalidCodeFormat: self = .invalidCodeFormat
        case .codeAlreadyUsed: self = .codeAlreadyUsed
        case .invalidDestination: self = .invalidDestination
        case .destinationNotAllowed, .channelNotSupported: self = .destinationRefused
        case .destinationBlocked: self = .destinationBlocked(retryAfter: error.retryAfter ?? 1)
        case .startRefused: self = .startRefused
        case .deliveryFailed: self = .deliveryFailed
        default: self = .server(code: error.code, message: error.message)
        }
    }
}
