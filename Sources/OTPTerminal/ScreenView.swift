import OTPCore

/// Everything the terminal draws, read from the screen's model in one go.
public struct ScreenView: Sendable, Hashable {
    /// The sentences, in the screen's language.
    public var text: ScreenText
    /// The title (V1).
    public var title: String
    /// "We sent a 6-digit code to" (V1).
    public var sentTo: String
    /// The masked destination (V1).
    public var destination: String
    /// The cells in their groups (F2, F7, F8, F9).
    public var cellGroups: [[CodeCell]]
    /// The status line.
    public var status: StatusMessage?
    /// The Resend label (V5).
    public var resendLabel: String
    /// Whether Resend can be pressed.
    public var isResendEnabled: Bool
    /// Whether Resend is shown.
    public var isResendVisible: Bool
    /// Whether the code comes from an authenticator app (no destination, no Resend).
    public var isAuthenticator: Bool
    /// The toast (V6).
    public var toast: String?
    /// The suggested code, when the bar is shown (S1).
    public var suggestion: String?
    /// Where the suggested code came from, such as "From Messages" (S1).
    public var suggestionSource: String
    /// The phase (F7).
    public var phase: VerificationPhase
    /// Whether a start request is in flight: "Sending a code…" (V11).
    public var isStarting: Bool
    /// Whether Try again is offered (Enter): after a failed first send or a check without an answer.
    public var canRetry: Bool
    /// What the code approves, above the cells (V16).
    public var transaction: String?
    /// Whether letters are code characters, so `r` and `q` type rather than resend and quit.
    public var lettersAreCode: Bool

    /// Reads a screen's state from a machine.
    public init(machine: VerificationMachine, isStarting: Bool = false, startFailure: StatusMessage? = nil) {
        text = machine.text
        title = machine.text.title
        sentTo = machine.sentToText
        // Isolated left to right where the sentence runs right to left (V15); a left-to-right
        // screen gets the plain text, which every terminal draws the same.
        destination =
            machine.text.isRightToLeft
            ? ScreenText.isolatedLeftToRight(machine.destination) : machine.destination
        cellGroups = machine.format.group(machine.cells)
        status = startFailure ?? machine.statusMessage
        resendLabel = machine.resendLabel
        isResendEnabled = machine.isResendEnabled
        isResendVisible = machine.isResendVisible
        isAuthenticator = machine.isAuthenticator
        toast = machine.toast?.text
        suggestion = machine.showsSuggestion ? machine.suggestion : nil
        suggestionSource = machine.suggestionSourceText
        phase = machine.phase
        self.isStarting = isStarting || machine.isSending
        canRetry = machine.canRetry
        transaction = machine.transactionText
        lettersAreCode = machine.format.kind == .alphanumeric
    }

    /// Reads a screen's state from a model.
    @MainActor
    public init(model: VerificationModel) {
        self.init(machine: model.machine, isStarting: model.isStarting, startFailure: model.startFailure)
    }
}
