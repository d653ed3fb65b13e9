import Foundation
import Observation

/// The verification screen's behaviour: one verification from start to verified.
///
/// A view (SwiftUI's `VerificationScreen`, the terminal's renderer) reads what
/// to draw from it and forwards events to it; every decision lives here and in
/// ``VerificationMachine``. Time comes from the clock given at creation; the
/// server's times are read against the server's own time at each answer (V13).
///
/// One start per screen (V12): ``start(to:channel:)`` on a model that already
/// started resumes it, so `.task { await model.start(to:) }` may run each time the
/// view appears.
@MainActor
@Observable
public final class VerificationModel {
    /// The state machine this model drives; read it for everything on screen.
    ///
    /// A copy of the machine the model's events change; a view that reads it is drawn again on
    /// every change, the countdown's ticks included. The code field reads ``codeField`` instead.
    public private(set) var machine: VerificationMachine
    /// What the code field draws, changed only when the field's own state changes: never by a
    /// countdown tick, so the platform text field (its selection, a Paste menu) is left alone.
    public private(set) var codeField: CodeFieldSnapshot
    /// The machine the events change; each change is published to ``machine`` and ``codeField``.
    @ObservationIgnored private var state: VerificationMachine {
        didSet {
            machine = state
            let field = CodeFieldSnapshot(state)
            if field != codeField { codeField = field }
        }
    }
    /// Whether a start request is in flight: "Sending a code…" with progress (V11).
    public var isStarting: Bool { machine.isSending }
    /// Why the last start failed, if it did; Try again (``retry()``) sends again (V11).
    public var startFailure: StatusMessage? { machine.startFailure }

    @ObservationIgnored private let service: any VerificationService
    @ObservationIgnored private let elapsed: @Sendable () -> Duration
    @ObservationIgnored private let sleepUntil: @Sendable (Duration) async throws -> Void
    @ObservationIgnored private let wallNow: @Sendable () -> Date
    @ObservationIgnored private var timer: Task<Void, Never>?
    @ObservationIgnored private var work: [UInt64: Task<Void, Never>] = [:]
    @ObservationIgnored private var nextWorkID: UInt64 = 0
    @ObservationIgnored private let onVerified: @MainActor (Verification) -> Void
    @ObservationIgnored private var startTask: Task<Void, Never>?

    /// Creates a model.
    ///
    /// - Parameters:
    ///   - service: The server, or ``PreviewVerificationService``.
    ///   - format: The code's format until the server says otherwise.
    ///   - language: The language of every sentence on the screen.
    ///   - clock: Drives countdowns, expiry, the toast and the suggestion fill.
    ///   - now: The device's wall time, used only for an answer of a service that does not say the
    ///     server's time (``ServerAnswer/serverDate`` `nil`).
    ///   - onVerified: Called once with the server's result when the code is right (V8).
    public convenience init<C: Clock>(
        service: any VerificationService, format: CodeFormat = .default, language: TextLanguage = .english,
        clock: C,
        now: @escaping @Sendable () -> Date = { Date() },
        onVerified: @escaping @MainActor (Verification) -> Void = { _ in }
    ) where C.Duration == Duration {
        self.init(
            service: service, format: format, text: ScreenText(language), clock: clock, now: now,
            onVerified: onVerified)
    }

    /// Creates a model with the app's own sentences (``ScreenText``: overrides, or a language of
    /// the app's catalog); the start asks the server for the message in that language.
    public init<C: Clock>(
        service: any VerificationService, format: CodeFormat = .default, text: ScreenText,
        clock: C,
        now: @escaping @Sendable () -> Date = { Date() },
        onVerified: @escaping @MainActor (Verification) -> Void = { _ in }
    ) where C.Duration == Duration {
        let origin = clock.now
        self.service = service
        let machine = VerificationMachine(format: format, text: text)
        self.state = machine
        self.machine = machine
        self.codeField = CodeFieldSnapshot(machine)
        self.elapsed = { origin.duration(to: clock.now) }
        self.sleepUntil = { deadline in
            try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil)
        }
        self.wallNow = now
        self.onVerified = onVerified
    }

    /// Creates a model on the continuous clock and the system's wall time, in the user's
    /// preferred language among the catalog's (``TextLanguage/preferred``) unless one is given.
    public convenience init(
        service: any VerificationService, format: CodeFormat = .default,
        language: TextLanguage = .preferred,
        onVerified: @escaping @MainActor (Verification) -> Void = { _ in }
    ) {
        self.init(
            service: service, format: format, language: language, clock: ContinuousClock(),
            onVerified: onVerified)
    }

    /// Creates a model on the continuous clock with the app's own sentences.
    public convenience init(
        service: any VerificationService, format: CodeFormat = .default, text: ScreenText,
        onVerified: @escaping @MainActor (Verification) -> Void = { _ in }
    ) {
        self.init(
            service: service, format: format, text: text, clock: ContinuousClock(), onVerified: onVerified)
    }

    isolated deinit {
        timer?.cancel()
        for task in work.values { task.cancel() }
    }

    // MARK: - What the screen shows

    /// The phase (F7).
    public var phase: VerificationPhase { machine.phase }
    /// The code's format: its length and whether it holds letters (which keyboard to show).
    public var format: CodeFormat { machine.format }
    /// The announcements made after the one with `serial`, oldest first.
    public func announcements(after serial: Int) -> [Announcement] { machine.announcements(after: serial) }
    /// The normalised code entered so far; the hidden text field shows it.
    public var codeText: String { machine.entry.value }
    /// The cells with text, colour role and focus highlight.
    public var cells: [CodeCell] { machine.cells }
    /// How the cells are grouped (3 + 3 for six).
    public var groups: [Int] { machine.format.groups }
    /// The cells split into their groups, for drawing with a separator between groups (F2).
    public var cellGroups: [[CodeCell]] { machine.format.group(machine.cells) }
    /// Whether keys, paste and autofill are taken.
    public var isInputEnabled: Bool { machine.isInputEnabled }
    /// The status line under the cells.
    public var statusMessage: StatusMessage? { machine.statusMessage }
    /// Whether "Sending a code…" shows with progress (V11).
    public var isSending: Bool { machine.isSending }
    /// What the code approves, above the cells (V16), or `nil`.
    public var transactionText: String? { machine.transactionText }
    /// The masked destination isolated left to right, for a sentence in any direction (V15).
    public var isolatedDestination: String { ScreenText.isolatedLeftToRight(machine.destination) }
    /// The Resend button's label.
    public var resendLabel: String { machine.resendLabel }
    /// Whether the Resend button is shown at all.
    public var isResendVisible: Bool { machine.isResendVisible }
    /// Whether the Resend button can be pressed.
    public var isResendEnabled: Bool { machine.isResendEnabled }
    /// The toast on screen.
    public var toast: Toast? { machine.toast }
    /// Changes once per rejection: shake the cells.
    public var shakeTrigger: Int { machine.shakeTrigger }
    /// Changes when focus should move to Resend.
    public var focusResendTrigger: Int { machine.focusResendTrigger }
    /// The haptic to play.
    public var hapticEvent: HapticEvent? { machine.hapticEvent }
    /// Announcements for assistive technology, oldest first.
    public var announcements: [Announcement] { machine.announcements }
    /// The sentences, in the screen's language.
    public var text: ScreenText { machine.text }
    /// The title (V1).
    public var title: String { machine.text.title }
    /// "We sent a 6-digit code to" (V1).
    public var sentToText: String { machine.sentToText }
    /// The masked destination (V1).
    public var destination: String { machine.destination }
    /// The field's accessibility label (F10).
    public var accessibilityLabel: String { machine.text.fieldLabel }
    /// The field's accessibility value: the count and the state (F10).
    ///
    /// Such as "6 of 6 digits, Code doesn't match. 2 attempts left."
    public var accessibilityValue: String { machine.accessibilityValue }
    /// The suggested code, when the bar is shown (S1).
    public var shownSuggestion: String? { machine.showsSuggestion ? machine.suggestion : nil }
    /// Where the suggested code came from, such as "From Messages" (S1).
    public var suggestionSourceText: String { machine.suggestionSourceText }
    /// The suggestion bar's accessibility label, with the code and its source (S1).
    public var suggestionAccessibilityLabel: String? {
        shownSuggestion.map { machine.text.suggestionLabel(code: $0, source: machine.suggestionSource) }
    }
    /// Whether the keyboard should stay up; once the code is verified it goes away.
    public var keepsKeyboard: Bool { machine.keepsKeyboard }
    /// Whether Try again is offered: the first send failed, or a check got no answer (``retry()``).
    public var canRetry: Bool { machine.canRetry }
    /// Whether cells show `•` instead of characters (F9).
    public var isMasked: Bool {
        get { machine.isMasked }
        set { state.isMasked = newValue }
    }
    /// Whether the code field has focus (F8, S1); the view reports it.
    public var isFocused: Bool {
        get { machine.isFocused }
        set { state.isFocused = newValue }
    }

    // MARK: - Events

    /// Starts a verification to a destination and shows it, once per screen (V11, V12).
    ///
    /// On a model that already started (or is starting) it sends nothing: it resumes the same
    /// verification, its timers and its typed characters, and waits for a start in flight. After a
    /// failed start it sends again, as Try again does.
    public func start(to destination: String, channel: Channel? = nil) async {
        let effects = state.startRequested(to: destination, channel: channel)
        if effects.isEmpty {
            resume()
        } else {
            perform(effects)
        }
        await startTask?.value
    }

    /// Picks the timers up again after ``stop()``, at the clock's time.
    public func resume() {
        state.tick(at: elapsed())
        reschedule()
    }

    /// Shows a verification started elsewhere.
    ///
    /// - Parameters:
    ///   - verification: The verification the server returned.
    ///   - serverDate: The server's time when it returned it; `nil` reads its times against the
    ///     device's clock.
    public func show(_ verification: Verification, serverDate: Date? = nil) {
        state.began(verification, at: elapsed(), serverNow: serverDate ?? wallNow())
        reschedule()
    }

    /// Asks for an authenticator app's code for a factor: no resend and no countdown; each check
    /// goes to the service's `check(id:code:)` with the factor's id, so the service is one that
    /// checks factors (such as `OTPClient`'s `AuthenticatorService`).
    public func showAuthenticator(factorID: String, attemptsLeft: Int, codeLength: Int = 6) {
        state.beganAuthenticator(
            factorID: factorID, attemptsLeft: attemptsLeft, codeLength: codeLength, at: elapsed(),
            serverNow: wallNow())
        reschedule()
    }

    /// Whether the code comes from an authenticator app.
    public var isAuthenticator: Bool { machine.isAuthenticator }

    /// A key or pasted text arrives at the end of the field.
    public func insert(_ text: String) {
        perform(state.insert(text, at: elapsed()))
    }

    /// The code field asks to make an edit; returns whether it changed the code, was refused
    /// (the field then shows ``codeText`` again) or is marked text still being composed.
    @discardableResult
    public func edit(_ edit: TextEdit) -> TextEditOutcome {
        let (outcome, effects) = state.edit(edit, at: elapsed())
        perform(effects)
        return outcome
    }

    /// The hidden text field's whole new text.
    public func setText(_ text: String) {
        perform(state.setText(text, at: elapsed()))
    }

    /// The delete key.
    public func deleteBackward() {
        state.deleteBackward(at: elapsed())
    }

    /// A cell was tapped: a filled one is selected for correction, an empty one gives that up (F11).
    public func selectCell(_ index: Int?) {
        state.selectCell(index, at: elapsed())
    }

    /// An arrow key: the selection moves one cell left (`-1`) or right (`+1`) (F11).
    public func moveSelection(by step: Int) {
        state.moveSelection(by: step, at: elapsed())
    }

    /// Resend was pressed.
    public func resend() {
        perform(state.resendPressed(at: elapsed()))
    }

    /// Try again: sends the first code again after a failed start (V11), or checks the same code
    /// again after a network failure (V9).
    public func retry() {
        perform(state.retry(at: elapsed()))
    }

    /// Offers a received code in the suggestion bar, naming where it came from, or withdraws
    /// it with `nil` (S1).
    public func offerSuggestion(_ code: String?, source: SuggestionSource = .messages) {
        state.offerSuggestion(code, source: source)
    }

    /// The suggestion bar was chosen: the code is typed in digit by digit, then submitted (S1).
    public func acceptSuggestion() {
        perform(state.acceptSuggestion(at: elapsed()))
    }

    /// Stops the timers and any work in flight.
    public func stop() {
        timer?.cancel()
        timer = nil
        for task in work.values { task.cancel() }
        work.removeAll()
        // A suggestion being typed in stops where it is, and input is taken again.
        state.suggestionInterrupted()
    }

    // MARK: - Effects

    private func perform(_ effects: [VerificationMachine.Effect]) {
        for effect in effects {
            switch effect {
            case .start(let destination, let channel, let locale):
                startTask = launch {
                    let service = $0.service
                    let result = await Self.capture { () async throws(VerificationFailure) in
                        try await service.startAnswer(to: destination, channel: channel, locale: locale)
                    }
                    $0.state.startAnswered(
                        result.map(\.verification), at: $0.elapsed(), serverNow: $0.serverNow(result))
                }
            case .check(let id, let code):
                launch {
                    let service = $0.service
                    let result = await Self.capture { () async throws(VerificationFailure) in
                        try await service.checkAnswer(id: id, code: code)
                    }
                    $0.perform(
                        $0.state.checkAnswered(
                            result.map(\.verification), at: $0.elapsed(), serverNow: $0.serverNow(result)))
                }
            case .resend(let id):
                launch {
                    let service = $0.service
                    let result = await Self.capture { () async throws(VerificationFailure) in
                        try await service.resendAnswer(id: id)
                    }
                    $0.perform(
                        $0.state.resendAnswered(
                            result.map(\.verification), at: $0.elapsed(), serverNow: $0.serverNow(result)))
                }
            case .typeSuggestion(let code):
                launch { model in
                    var step = model.elapsed()
                    for (index, character) in code.enumerated() {
                        step += VerificationMachine.suggestionStep
                        do { try await model.sleepUntil(step) } catch { return }
                        model.perform(
                            model.state.typeSuggested(
                                character, isLast: index == code.count - 1, at: model.elapsed()))
                    }
                }
            case .refresh(let id):
                launch {
                    let service = $0.service
                    let result = await Self.capture { () async throws(VerificationFailure) in
                        try await service.statusAnswer(id: id)
                    }
                    $0.perform(
                        $0.state.refreshAnswered(
                            result.map(\.verification), at: $0.elapsed(), serverNow: $0.serverNow(result)))
                }
            case .complete(let verification):
                onVerified(verification)
            }
        }
        reschedule()
    }

    private static func capture(
        _ call: () async throws(VerificationFailure) -> ServerAnswer
    ) async -> Result<ServerAnswer, VerificationFailure> {
        do { return .success(try await call()) } catch { return .failure(error) }
    }

    /// The server's time at an answer; the device's only when the service does not say (V13).
    private func serverNow(_ result: Result<ServerAnswer, VerificationFailure>) -> Date {
        if case .success(let answer) = result, let date = answer.serverDate { return date }
        return wallNow()
    }

    /// The checks, resends and suggestion fills still running; each leaves when it ends.
    var workInFlight: Int { work.count }

    @discardableResult
    private func launch(_ body: @escaping @MainActor (VerificationModel) async -> Void) -> Task<Void, Never> {
        nextWorkID += 1
        let id = nextWorkID
        let task = Task { [weak self] in
            guard let self else { return }
            await body(self)
            self.work[id] = nil
            self.reschedule()
        }
        // The task runs on the main actor too, so it cannot end before it is recorded here.
        work[id] = task
        return task
    }

    /// Sleeps until the machine's next deadline, ticks, and repeats.
    private func reschedule() {
        timer?.cancel()
        guard let deadline = state.nextDeadline() else {
            timer = nil
            return
        }
        timer = Task { [weak self, sleepUntil] in
            do { try await sleepUntil(deadline) } catch { return }
            guard let self, !Task.isCancelled else { return }
            self.state.tick(at: max(deadline, self.elapsed()))
            self.reschedule()
        }
    }
}
