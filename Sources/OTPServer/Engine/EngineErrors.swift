import OTPCore

/// The errors the engine answers with, each with the screen's sentence where one exists.
extension APIError {
    static let notFound = APIError(code: .notFound, message: ScreenText.notFound)
    static let notPending = APIError(code: .notPending, message: ScreenText.notPending)
    static let storeUnavailable = APIError(
        code: .storeUnavailable, message: "The verification service is unavailable. Try again.")
    static let internalFailure = APIError(
        code: .internalError, message: "Something went wrong on the server. Try again.")

    static func expired(attemptsLeft: Int) -> APIError {
        APIError(code: .expired, message: ScreenText.expired, attemptsLeft: attemptsLeft)
    }

    static let locked = APIError(code: .locked, message: ScreenText.locked, attemptsLeft: 0)

    static func incorrect(attemptsLeft: Int) -> APIError {
        APIError(
            code: .incorrectCode,
            message: attemptsLeft > 0 ? ScreenText.incorrect(attemptsLeft: attemptsLeft) : ScreenText.locked,
            attemptsLeft: attemptsLeft)
    }

    static func invalidCodeFormat(_ format: CodeFormat, attemptsLeft: Int) -> APIError {
        APIError(
            code: .invalidCodeFormat, message: ScreenText.invalidFormat(format), attemptsLeft: attemptsLeft)
    }

    static func rateLimited(waitMilliseconds: Int64) -> APIError {
        let seconds = StoreTime.retrySeconds(milliseconds: waitMilliseconds)
        return APIError(
            code: .rateLimited, message: ScreenText.rateLimited(retryAfter: seconds), retryAfter: seconds)
    }

    static func resendTooSoon(waitMilliseconds: Int64) -> APIError {
        let seconds = StoreTime.retrySeconds(milliseconds: waitMilliseconds)
        return APIError(
            code: .resendTooSoon, message: ScreenText.resendIn(seconds: seconds), retryAfter: seconds)
    }

    static func maxSendsReached(waitMilliseconds: Int64) -> APIError {
        let seconds = Int(max(0, (waitMilliseconds + 999) / 1000))
        return APIError(code: .maxSendsReached, message: ScreenText.maxSendsReached, retryAfter: seconds)
    }

    static let startDeliveryFailed = APIError(code: .deliveryFailed, message: ScreenText.startFailed)
    static let resendDeliveryFailed = APIError(code: .deliveryFailed, message: ScreenText.deliveryFailed)

    static let invalidIdempotencyKey = APIError(
        code: .invalidRequest, message: "The Idempotency-Key must be 1 to 255 printable ASCII characters.")
    static let idempotencyKeyReused = APIError(
        code: .idempotencyKeyReused, message: "This Idempotency-Key was used with a different request.")

    static func channelOff(_ channel: Channel) -> APIError {
        APIError(
            code: .channelNotSupported,
            message: channel == .sms
                ? "Codes can't be sent by SMS here." : "Codes can't be sent by email here.")
    }

    static let callingCodeNotAllowed = APIError(
        code: .channelNotSupported, message: "Codes can't be sent by SMS to this country.")
}
