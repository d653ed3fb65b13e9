/// An error code of the HTTP API, with the HTTP status it is sent with.
///
/// Unknown codes decode too, so a newer server never breaks an older client.
public struct OTPErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The code as it appears on the wire, such as `incorrect_code`.
    public let rawValue: String

    /// Wraps a wire code.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The code as it appears on the wire.
    public var description: String { rawValue }

    /// Decodes the code from a JSON string.
    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the code as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// 401: the API key is missing or wrong.
    public static let unauthorized = OTPErrorCode(rawValue: "unauthorized")
    /// 400: malformed JSON, a missing field or an over-long one.
    public static let invalidRequest = OTPErrorCode(rawValue: "invalid_request")
    /// 400: the destination is not an E.164 number or an email address.
    public static let invalidDestination = OTPErrorCode(rawValue: "invalid_destination")
    /// 400: the channel is not offered for this destination.
    public static let channelNotSupported = OTPErrorCode(rawValue: "channel_not_supported")
    /// 400: the code does not have the format's length after normalisation.
    public static let invalidCodeFormat = OTPErrorCode(rawValue: "invalid_code_format")
    /// 404: no such verification, or no such route.
    public static let notFound = OTPErrorCode(rawValue: "not_found")
    /// 405: the route exists but not with this method.
    public static let methodNotAllowed = OTPErrorCode(rawValue: "method_not_allowed")
    /// 409: the verification is approved or canceled.
    public static let notPending = OTPErrorCode(rawValue: "not_pending")
    /// 410: the code's lifetime has passed.
    public static let expired = OTPErrorCode(rawValue: "expired")
    /// 413: the body is over 16 KiB.
    public static let payloadTooLarge = OTPErrorCode(rawValue: "payload_too_large")
    /// 422: the code is wrong; `attemptsLeft` says how many remain.
    public static let incorrectCode = OTPErrorCode(rawValue: "incorrect_code")
    /// 422: the idempotency key was used with a different body.
    public static let idempotencyKeyReused = OTPErrorCode(rawValue: "idempotency_key_reused")
    /// 422: the phone number's region or type may not take SMS here; nothing was sent.
    ///
    /// `reason` says which: `region` or `number_type`.
    public static let destinationNotAllowed = OTPErrorCode(rawValue: "destination_not_allowed")
    /// 423: the current code has no attempts left.
    public static let locked = OTPErrorCode(rawValue: "locked")
    /// 429: a rate limit was reached; `retryAfter` says how long to wait.
    public static let rateLimited = OTPErrorCode(rawValue: "rate_limited")
    /// 429: the resend cooldown is still running.
    public static let resendTooSoon = OTPErrorCode(rawValue: "resend_too_soon")
    /// 429: the verification has used all its sends.
    public static let maxSendsReached = OTPErrorCode(rawValue: "max_sends_reached")
    /// 502: the SMS or email provider refused or could not be reached.
    public static let deliveryFailed = OTPErrorCode(rawValue: "delivery_failed")
    /// 503: the store does not answer.
    public static let storeUnavailable = OTPErrorCode(rawValue: "store_unavailable")
    /// 500: an unexpected failure inside the server.
    public static let internalError = OTPErrorCode(rawValue: "internal_error")
    /// The key may not do this: a publishable key asked to cancel, or for another key's route (403).
    public static let forbidden = OTPErrorCode(rawValue: "forbidden")
    /// The operator's start guard refused the start before anything was sent (403).
    public static let startRefused = OTPErrorCode(rawValue: "start_refused")
    /// 429: the pumping guard blocks the destination's prefix or region.
    ///
    /// `reason` says why (`pumping`) and `retryAfter` when the block ends. Nothing was sent.
    public static let destinationBlocked = OTPErrorCode(rawValue: "destination_blocked")
    /// An authenticator code already accepted for its time step: a replay (409).
    public static let codeAlreadyUsed = OTPErrorCode(rawValue: "code_already_used")
    /// The request uses a transfer coding the server does not implement (anything but `chunked`); HTTP 501.
    public static let notImplemented = OTPErrorCode(rawValue: "not_implemented")

    /// Every code the API defines.
    public static let all: [OTPErrorCode] = [
        .unauthorized, .invalidRequest, .invalidDestination, .channelNotSupported, .invalidCodeFormat,
        .notFound, .methodNotAllowed, .notPending, .expired, .payloadTooLarge, .incorrectCode,
        .idempotencyKeyReused, .locked, .rateLimited, .resendTooSoon, .maxSendsReached, .deliveryFailed,
        .storeUnavailable, .internalError, .forbidden, .startRefused, .codeAlreadyUsed, .notImplemented,
        .destinationNotAllowed, .destinationBlocked,
    ]

    /// The HTTP status this code is sent with: the one place the mapping lives.
    public var httpStatus: Int {
        // The most frequent answer, a wrong code, first: each case compares the code's text.
        switch self {
        case .incorrectCode, .idempotencyKeyReused, .destinationNotAllowed: 422
        case .unauthorized: 401
        case .forbidden, .startRefused: 403
        case .invalidRequest, .invalidDestination, .channelNotSupported, .invalidCodeFormat: 400
        case .notFound: 404
        case .methodNotAllowed: 405
        case .notPending, .codeAlreadyUsed: 409
        case .expired: 410
        case .payloadTooLarge: 413
        case .locked: 423
        case .rateLimited, .resendTooSoon, .maxSendsReached, .destinationBlocked: 429
        case .deliveryFailed: 502
        case .storeUnavailable: 503
        case .notImplemented: 501
        default: 500
        }
    }
}
