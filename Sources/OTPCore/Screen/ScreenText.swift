/// The screen's sentences (UX V1–V9), shared by the views, the terminal and the server's messages.
public enum ScreenText {
    /// The screen's title (V1).
    public static let title = "Enter the code"
    /// The line above the masked destination (V1), such as "We sent a 6-digit code to".
    public static func sentTo(_ format: CodeFormat) -> String {
        let article = format.length == 8 ? "an" : "a"
        return "We sent \(article) \(format.length)-\(format.kind == .digits ? "digit" : "character") code to"
    }
    /// Shown and announced while a code is checked (V2).
    public static let verifying = "Verifying…"
    /// Shown and announced for a wrong code (V3): "Code doesn't match. 2 attempts left."
    public static func incorrect(attemptsLeft: Int) -> String {
        attemptsLeft == 1
            ? "Code doesn't match. 1 attempt left."
            : "Code doesn't match. \(attemptsLeft) attempts left."
    }
    /// Shown when the current code has no attempts left (V4).
    public static let locked = "Too many attempts. Request a new code."
    /// Shown for an expired code (V7).
    public static let expired = "This code has expired."
    /// Shown and announced for a right code (V8).
    public static let verified = "Verified"
    /// Shown when the server could not be reached (V9).
    public static let networkFailure = "Couldn't reach the server. Try again."
    /// The button that checks the same code again after a network failure (V9).
    public static let tryAgain = "Try again"
    /// The default label of the biometric key (P1).
    public static let biometricLabel = "Use Face ID"
    /// The toast after a resend (V6).
    public static let newCodeSent = "New code sent"
    /// The resend button while its countdown runs (V5), such as "Resend in 0:24".
    public static func resendIn(seconds: Int) -> String {
        "Resend in \(clock(seconds: seconds))"
    }
    /// The resend button when a resend is possible (V5).
    public static let resendCode = "Resend code"
    /// Announced once when a countdown ends (V5).
    public static let resendAvailable = "You can request a new code"
    /// Shown when a rate limit was reached.
    public static func rateLimited(retryAfter seconds: Int) -> String {
        "Too many tries. Try again in \(clock(seconds: seconds))."
    }
    /// Shown when a new code could not be delivered.
    public static let deliveryFailed = "Couldn't send a new code. Try again."
    /// Shown when the verification has used every send.
    public static let maxSendsReached = "No more codes can be sent. Start again later."
    /// Shown when the verification was approved or canceled elsewhere.
    public static let notPending = "This verification is no longer active."
    /// Shown when no such verification exists.
    public static let notFound = "This verification was not found."
    /// Shown when a code does not have the format's length.
    public static func invalidFormat(_ format: CodeFormat) -> String {
        "Enter all \(format.length) \(format.unitNoun)."
    }
    /// Shown when the destination was refused.
    public static let invalidDestination = "Enter a phone number or email address."
    /// Shown when the first code could not be sent.
    public static let startFailed = "Couldn't send the code. Try again."
    /// The suggestion bar's source label (S1).
    public static let fromMessages = "From Messages"
    /// The code field's accessibility label (F10).
    public static let fieldLabel = "Verification code"

    /// Formats seconds as m:ss, such as `0:24` or `5:00`.
    public static func clock(seconds: Int) -> String {
        let seconds = max(0, seconds)
        let rest = seconds % 60
        return "\(seconds / 60):\(rest < 10 ? "0" : "")\(rest)"
    }
}
