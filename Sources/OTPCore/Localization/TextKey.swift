/// The name of every sentence a user reads or hears; its placeholders are listed with it.
public enum TextKey: String, Sendable, Hashable, CaseIterable, Codable {
    /// The screen's title (V1).
    case title
    /// The line above the destination for a digit code (V1). `{length}` (plural).
    case sentToDigits
    /// The line above the destination for a code of letters and digits (V1). `{length}` (plural).
    case sentToCharacters
    /// The line above the field when the code comes from an authenticator app.
    case authenticatorPrompt
    /// An authenticator code already accepted for its time step.
    case codeAlreadyUsed
    /// An authenticator factor locked by wrong codes.
    case authenticatorLocked
    /// Shown while the first code is being sent.
    case sendingCode
    /// Shown and announced while a code is checked (V2).
    case verifying
    /// A wrong code (V3). `{count}` (plural): attempts left.
    case incorrect
    /// A code the app rejected, in a field used on its own (F10).
    case codeRejected
    /// No attempts left (V4).
    case locked
    /// The code expired (V7).
    case expired
    /// The code was right (V8).
    case verified
    /// The server could not be reached (V9).
    case networkFailure
    /// The button that checks the same code again (V9).
    case tryAgain
    /// The default label of the biometric key (P1).
    case biometricLabel
    /// The toast after a resend (V6).
    case newCodeSent
    /// The resend button counting down (V5). `{time}`, such as 0:24.
    case resendIn
    /// The resend button when a resend is possible (V5).
    case resendCode
    /// Announced once when the countdown ends (V5).
    case resendAvailable
    /// A rate limit was reached. `{time}`, such as 0:24.
    case rateLimited
    /// A new code could not be delivered.
    case deliveryFailed
    /// Every send was used.
    case maxSendsReached
    /// The verification was approved or canceled elsewhere.
    case notPending
    /// No such verification.
    case notFound
    /// A digit code of the wrong length. `{length}` (plural).
    case invalidFormatDigits
    /// A code of letters and digits of the wrong length. `{length}` (plural).
    case invalidFormatCharacters
    /// The destination was refused.
    case invalidDestination
    /// The first code could not be sent.
    case startFailed
    /// The first code was refused for this destination: a kind of number or a region the service
    /// does not send to, or a channel it does not offer there (V11).
    case destinationRefused
    /// Sends to this destination are paused (the pumping guard). `{time}`.
    case destinationPaused
    /// The service refused the start before sending (its start guard).
    case startRefused
    /// The suggestion bar's source for a code from Messages (S1).
    case suggestionFromMessages
    /// The suggestion bar's source for a code from Mail (S1).
    case suggestionFromMail
    /// The suggestion bar's source for a code from a notification (S1).
    case suggestionFromNotification
    /// The suggestion bar's source for a code from a link (S1).
    case suggestionFromLink
    /// The suggestion bar's source: an authenticator app.
    case suggestionFromAuthenticator
    /// The suggestion bar's accessibility label. `{source}` (one of the four above), `{code}`.
    case suggestionLabel
    /// The code field's accessibility label (F10).
    case fieldLabel
    /// The code field's accessibility value for digits (F10). `{count}`, `{length}` (plural).
    case fieldValueDigits
    /// The code field's accessibility value for letters and digits (F10). `{count}`, `{length}` (plural).
    case fieldValueCharacters
    /// The field's value followed by the screen's state (F10). `{value}`, `{status}`.
    case fieldValueWithStatus
    /// The PIN pad's dots, as assistive technology names them (P1).
    case pinLabel
    /// The PIN pad's dots' value, announced after each key (P1). `{count}`, `{length}` (plural).
    case pinValue
    /// Said when a PIN was not accepted, so the error is more than the dots' colour (P1).
    case pinRejected
    /// The keypad's delete key (K1).
    case keyDelete
    /// The keypad's decimal point key (K1).
    case keyDecimalPoint
    /// The terminal screen's key hints.
    case terminalHints
    /// The terminal screen's key hints for a code with letters, where `r` and `q` are characters.
    case terminalHintsLetters
    /// The button that submits the code on a page without JavaScript.
    case verifyButton
    /// What a code approves, above the cells (V16). `{amount}`, `{currency}`, `{payee}`.
    case approveTransaction
    /// The button that hands the approval back to the app on a page without JavaScript.
    case continueButton
    /// The hosted page's way back to the app without a verification (a lock, no sends left).
    case goBack
}
