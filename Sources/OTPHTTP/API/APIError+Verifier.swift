import OTPCore
import OTPEngine

extension APIError {
    /// The wire form of an engine refusal: the API's error code, the screen's sentence, and the
    /// numbers a client shows (attempts left, whole seconds to wait).
    ///
    /// This is the one place an engine error becomes an HTTP answer; the status follows from
    /// the code (``OTPErrorCode/httpStatus``). A kind this version does not know answers 500.
    public init(_ error: VerifierError) {
        let attemptsLeft = error.attemptsLeft
        switch error.kind {
        case .notFound:
            self.init(code: .notFound, message: ScreenText.english.notFound)
        case .notPending:
            self.init(code: .notPending, message: ScreenText.english.notPending, attemptsLeft: attemptsLeft)
        case .expired:
            self.init(code: .expired, message: ScreenText.english.expired, attemptsLeft: attemptsLeft ?? 0)
        case .locked:
            self.init(code: .locked, message: ScreenText.english.locked, attemptsLeft: 0)
        case .codeAlreadyUsed:
            self.init(
                code: .codeAlreadyUsed,
                message: "That code was already used. Wait for your authenticator app to show the next one.")
        case .incorrectCode:
            let left = attemptsLeft ?? 0
            self.init(
                code: .incorrectCode,
                message: left > 0
                    ? ScreenText.english.incorrect(attemptsLeft: left) : ScreenText.english.locked,
                attemptsLeft: left)
        case .invalidCodeFormat:
            let format = error.codeFormat ?? CodeFormat(length: 6)
            self.init(
                code: .invalidCodeFormat, message: ScreenText.english.invalidFormat(format),
                attemptsLeft: attemptsLeft)
        case .rateLimited:
            let seconds = Self.retrySeconds(error.retryAfter)
            self.init(
                code: .rateLimited, message: ScreenText.english.rateLimited(retryAfter: seconds),
                attemptsLeft: attemptsLeft, retryAfter: seconds)
        case .resendTooSoon:
            let seconds = Self.retrySeconds(error.retryAfter)
            self.init(
                code: .resendTooSoon, message: ScreenText.english.resendIn(seconds: seconds),
                retryAfter: seconds)
        case .maxSendsReached:
            // The seconds until the current code expires, which may be none.
            let milliseconds = error.retryAfter.map(StoreTime.milliseconds) ?? 0
            self.init(
                code: .maxSendsReached, message: ScreenText.english.maxSendsReached,
                retryAfter: Int(max(0, (milliseconds + 999) / 1000)))
        case .deliveryFailed:
            self.init(
                code: .deliveryFailed,
                message: error.step == .resend
                    ? ScreenText.english.deliveryFailed : ScreenText.english.startFailed)
        case .invalidDestination:
            self.init(code: .invalidDestination, message: ScreenText.english.invalidDestination)
        case .destinationChannelMismatch:
            self.init(
                code: .channelNotSupported,
                message: error.channel == .email
                    ? "Codes for an email address can only be sent by email."
                    : "Codes for a phone number can only be sent by SMS.")
        case .channelNotSupported:
            self.init(
                code: .channelNotSupported,
                message: error.channel == .email
                    ? "Codes can't be sent by email here." : "Codes can't be sent by SMS here.")
        case .callingCodeNotAllowed:
            self.init(code: .channelNotSupported, message: "Codes can't be sent by SMS to this country.")
        case .destinationNotAllowed:
            self.init(
                code: .destinationNotAllowed,
                message: error.refusal == .region
                    ? "Codes can't be sent by SMS to numbers of this region."
                    : "Codes can't be sent by SMS to this kind of number.",
                reason: error.refusal?.rawValue)
        case .invalidIdempotencyKey:
            self.init(
                code: .invalidRequest,
                message: "The Idempotency-Key must be 1 to 255 printable ASCII characters.")
        case .idempotencyKeyReused:
            self.init(
                code: .idempotencyKeyReused,
                message: "This Idempotency-Key was used with a different request.")
        case .invalidRef:
            self.init(
                code: .invalidRequest,
                message:
                    "\"ref\" must be 1 to \(StartRequest.maxRefCharacters) characters without control characters."
            )
        case .invalidTransaction:
            self.init(
                code: .invalidRequest,
                message:
                    "\"transaction\" needs a decimal \"amount\", an ISO 4217 \"currency\" and a \"payee\" "
                    + "of at most \(TransactionDetails.maxPayeeCharacters) characters.")
        case .factorNotConfirmed:
            self.init(
                code: .notPending,
                message: "This authenticator is not confirmed yet: check a code from the app first.")
        case .startRefused:
            let reason = error.reason ?? ""
            self.init(
                code: .startRefused,
                message: reason.isEmpty ? "The start was refused before a code was sent." : reason)
        case .startGuardUnavailable:
            self.init(
                code: .startRefused,
                message: "The start guard did not answer; no code was sent. Try again later.")
        case .destinationBlocked:
            let seconds = Self.retrySeconds(error.retryAfter)
            self.init(
                code: .destinationBlocked,
                message: "Codes can't be sent to this number right now. Try again later.",
                retryAfter: seconds, reason: error.reason ?? "pumping")
        case .storeUnavailable:
            self.init(code: .storeUnavailable, message: "The verification service is unavailable. Try again.")
        default:
            self.init(code: .internalError, message: "Something went wrong on the server. Try again.")
        }
    }

    /// Whole seconds to wait, rounded up and at least one.
    private static func retrySeconds(_ wait: Duration?) -> Int {
        StoreTime.retrySeconds(milliseconds: wait.map(StoreTime.milliseconds) ?? 1000)
    }
}
