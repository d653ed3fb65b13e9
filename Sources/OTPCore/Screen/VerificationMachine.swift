import Foundation

/// The verification screen as a value: events in, effects out, no I/O (UX V1–V10).
///
/// Time is a `Duration` since the screen began, given with every event that
/// needs it; ``VerificationModel`` owns the clock, the service calls and the
/// timers, and performs the effects this machine returns. The server's times
/// are read against the server's own time at its answer (`serverNow`), never
/// the device's clock (V13).
public struct VerificationMachine: Sendable, Equatable {
    /// Something the owner of the machine must do.
    public enum Effect: Sendable, Equatable {
        /// Start a verification, its message in `locale` (V11).
        case start(to: String, channel: Channel?, locale: String?)
        /// Check this code with the service.
        case check(id: String, code: String)
        /// Ask the service for a new code.
        case resend(id: String)
        /// Type this suggested code in, one character about every 60 ms (S1).
        case typeSuggestion(String)
        /// The code was right: call the screen's completion with the server's result (V8).
        case complete(Verification)
        /// Ask the service how the verification stands after an answer was lost (V9).
        case refresh(id: String)
    }

    /// Why the screen asked how the verification stands.
    private enum Refresh {
        /// A retried check answered `not_pending`: the lost first answer may have been an approval.
        case afterCheck
        /// A resend got no answer, or `resend_too_soon`: a new code may have gone out.
        case afterResend
    }

    /// How long the toast stays (V6).
    public static let toastDuration: Duration = .seconds(2)
    /// The pause between the characters of an accepted suggestion (S1).
    public static let suggestionStep: Duration = .milliseconds(60)

    /// The sentences, in the screen's language.
    public let text: ScreenText
    /// The code's format.
    public private(set) var format: CodeFormat
    /// What has been entered.
    public private(set) var entry: CodeEntry
    /// The verification as the server last described it.
    public private(set) var verification: Verification?
    /// The result phase, or `nil` while the user is editing (then idle or filling).
    private var resultPhase: VerificationPhase?
    /// The status line.
    public private(set) var statusMessage: StatusMessage?
    /// The toast on screen, if any.
    public private(set) var toast: Toast?
    /// Changes once per rejection; the view shakes the cells when it changes (F6).
    public private(set) var shakeTrigger = 0
    /// Changes when focus should move to the Resend button (V4, V7): at a lock or an expiry when
    /// Resend can be pressed, else when its countdown ends (a disabled button takes no focus).
    public private(set) var focusResendTrigger = 0
    /// Whether focus goes to Resend once it can be pressed.
    private var pointsToResend = false
    /// The last haptic requested.
    public private(set) var hapticEvent: HapticEvent?
    /// Every announcement made, oldest first (the last 32).
    public private(set) var announcements: [Announcement] = []
    /// A code the app knows was received, offered in the suggestion bar (S1).
    public private(set) var suggestion: String?
    /// Where the suggested code came from, named in the suggestion bar (S1).
    public private(set) var suggestionSource: SuggestionSource = .messages
    /// Whether a suggestion is being typed in.
    public private(set) var isTypingSuggestion = false
    /// Whether the code field has focus, so the keyboard is up.
    ///
    /// The view reports the field's real focus; until it does, nothing assumes a keyboard
    /// (no suggestion bar, no next-cell highlight).
    public var isFocused = false
    /// Whether cells show `•` instead of characters (F9).
    public var isMasked = false
    /// Whether a resend request is in flight.
    public private(set) var isResending = false
    private var refreshing: Refresh?
    /// Whether the last check failed without an answer, or the first send failed, and Try again
    /// is offered (V9, V11).
    public var canRetry: Bool { canRetryCheck || startState == .failed }
    /// Where the first send stands (V11, V12).
    public private(set) var startState = StartState.notStarted
    /// Why the first send failed, while it has (V11).
    public private(set) var startFailure: StatusMessage?
    private var canRetryCheck = false
    private var startRequest: StartRequest?

    private struct StartRequest: Sendable, Equatable {
        var destination: String
        var channel: Channel?
    }
    /// The last rejection of a wrong code, shown again when the same code is typed again.
    private var lastRejection: String?
    /// The time of the last event.
    public private(set) var now: Duration = .zero

    private var resendAt: Duration?
    private var expiresAt: Duration?
    private var toastUntil: Duration?
    private var resendAvailabilityAnnounced = false
    private var serial = 0

    /// Where the first send stands.
    public enum StartState: Sendable, Hashable {
        /// Nothing was asked for yet.
        case notStarted
        /// The first code is being sent: "Sending a code…", no keyboard (V11).
        case sending
        /// The first send failed: the reason and Try again are shown (V11).
        case failed
        /// A verification exists; a start asked for again resumes it (V12).
        case started
    }

    /// Creates a machine for a format, before any verification exists, speaking a language.
    public init(format: CodeFormat = .default, language: TextLanguage = .english) {
        self.init(format: format, text: ScreenText(language))
    }

    /// Creates a machine for a format, before any verification exists, with the app's sentences.
    public init(format: CodeFormat = .default, text: ScreenText) {
        self.text = text
        self.format = format
        self.entry = CodeEntry(format: format)
    }

    // MARK: - What the screen shows

    /// The phase (F7).
    public var phase: VerificationPhase {
        if let resultPhase { return resultPhase }
        return entry.isEmpty ? .idle : .filling
    }

    /// Whether keys, paste and autofill are taken (F7: read-only while verifying, after success,
    /// while locked or expired, and before a code was sent).
    public var isInputEnabled: Bool {
        guard verification != nil, !isTypingSuggestion else { return false }
        switch phase {
        case .idle, .filling, .invalid: return true
        case .verifying, .verified, .expired, .locked: return false
        }
    }

    /// The cells, with text, colour role and focus highlight (F7, F8, F9).
    public var cells: [CodeCell] {
        let role: ColorRole
        switch phase {
        case .idle, .filling: role = .neutral
        case .verifying: role = .progress
        case .verified: role = .success
        case .invalid, .expired: role = .error
        case .locked: role = .disabled
        }
        return entry.cells(isFocused: isFocused, isEditable: isInputEnabled, isMasked: isMasked, role: role)
    }

    /// The announcements made after the one with `serial`, oldest first; post these to assistive technology.
    public func announcements(after serial: Int) -> [Announcement] {
        announcements.filter { $0.serial > serial }
    }

    /// The code field's accessibility value (F10): the count, then the state; never the characters.
    ///
    /// Such as "3 of 6 digits", or "6 of 6 digits, Code doesn't match. 2 attempts left."
    public var accessibilityValue: String {
        text.fieldValue(
            text.fieldValue(count: entry.value.count, format: format), status: statusMessage?.text)
    }

    /// Whether the keyboard should stay up: not once the code was verified (seed 003 unfocuses
    /// on complete), nor while locked or expired, where focus moves to Resend (V4).
    public var keepsKeyboard: Bool {
        // No keyboard over a field that takes nothing yet (V11).
        guard verification != nil else { return false }
        switch phase {
        case .verified, .locked, .expired: return false
        case .idle, .filling, .verifying, .invalid: return true
        }
    }

    /// The line under the title, such as "We sent a 6-digit code to" (V1), or the authenticator prompt.
    ///
    /// Until the first code exists it reads "Sending a code…" (V11), and nothing once that failed.
    public var sentToText: String {
        if isAuthenticator { return text.authenticatorPrompt }
        if verification == nil { return startState == .failed ? "" : text.sendingCode }
        return text.sentTo(format)
    }

    /// Whether the screen shows progress: the first code is being sent (V11).
    public var isSending: Bool { startState == .sending && verification == nil }

    /// What the code approves, such as "Approve 12.50 EUR to ACME Ltd", shown above the cells (V16).
    public var transactionText: String? {
        guard let transaction = verification?.transaction else { return nil }
        return text.approveTransaction(transaction)
    }

    /// Whether the code comes from an authenticator app (TOTP): no resend, no countdown, no expiry.
    public private(set) var isAuthenticator = false

    /// The masked destination the server returned (V1).
    public var destination: String { verification?.to ?? "" }

    /// Attempts left for the current code, as the server said.
    public var attemptsLeft: Int? { verification?.attemptsLeft }

    /// Whole seconds until Resend is possible, or `nil` when it is not counting down.
    public var resendSecondsLeft: Int? {
        guard let resendAt, resendAt > now else { return nil }
        return Self.ceilSeconds(resendAt - now)
    }

    /// The Resend button's label (V5): "Resend in 0:24" or "Resend code".
    public var resendLabel: String {
        if let seconds = resendSecondsLeft { return text.resendIn(seconds: seconds) }
        return text.resendCode
    }

    /// Whether the Resend button is shown at all: not once the code was verified (V8).
    public var isResendVisible: Bool { !isAuthenticator && phase != .verified && verification != nil }

    /// Whether the Resend button can be pressed (V5).
    public var isResendEnabled: Bool {
        guard let verification, verification.sendsLeft > 0, resendAt != nil, resendSecondsLeft == nil
        else { return false }
        switch phase {
        case .verifying, .verified: return false
        default: return !isResending && verification.status != .approved && verification.status != .canceled
        }
    }

    /// Whether the suggestion bar is shown: a code is known, the field is focused and empty (S1).
    public var showsSuggestion: Bool {
        suggestion != nil && isFocused && entry.isEmpty && isInputEnabled
    }

    // MARK: - Events

    /// The screen asks for its verification (V11, V12): the first time a start; while one is being
    /// sent, or once one exists, nothing, so a view that reappears resumes the same verification.
    public mutating func startRequested(to destination: String, channel: Channel?) -> [Effect] {
        switch startState {
        case .sending, .started: return []
        case .notStarted, .failed: break
        }
        startRequest = StartRequest(destination: destination, channel: channel)
        return beginSending()
    }

    /// The first send was answered: the verification is shown, or why it failed with Try again (V11).
    public mutating func startAnswered(
        _ result: Result<Verification, VerificationFailure>, at now: Duration, serverNow: Date
    ) {
        guard startState == .sending else { return }
        switch result {
        case .success(let verification):
            began(verification, at: now, serverNow: serverNow)
        case .failure(let failure):
            self.now = now
            startState = .failed
            let message: String
            switch failure {
            case .invalidDestination: message = text.invalidDestination
            case .rateLimited(let seconds): message = text.rateLimited(retryAfter: seconds)
            case .networkFailure: message = text.networkFailure
            case .destinationRefused: message = text.destinationRefused
            case .destinationBlocked(let seconds): message = text.destinationPaused(retryAfter: seconds)
            case .startRefused: message = text.startRefused
            default: message = text.startFailed
            }
            startFailure = StatusMessage(message, role: .error)
            statusMessage = startFailure
            announce(message, .assertive)
        }
    }

    private mutating func beginSending() -> [Effect] {
        guard let startRequest else { return [] }
        startState = .sending
        startFailure = nil
        statusMessage = nil
        return [
            .start(to: startRequest.destination, channel: startRequest.channel, locale: text.serverLocale)
        ]
    }

    /// A verification was started or loaded: the screen shows it and its countdowns (V1, V5).
    ///
    /// `serverNow` is the server's time at its answer: the verification's times are read against it.
    public mutating func began(_ verification: Verification, at now: Duration, serverNow: Date) {
        begin(verification, authenticator: false, at: now, serverNow: serverNow)
    }

    private mutating func begin(
        _ verification: Verification, authenticator: Bool, at now: Duration, serverNow: Date
    ) {
        isAuthenticator = authenticator
        self.now = now
        startState = .started
        startFailure = nil
        lastRejection = nil
        canRetryCheck = false
        adopt(verification, at: now, serverNow: serverNow)
        if format.length != verification.codeLength {
            format = CodeFormat(length: verification.codeLength, kind: format.kind)
        }
        entry = CodeEntry(format: format)
        resultPhase = statusPhase(verification.status)
        statusMessage = resultPhase.map(messageForStatusPhase)
    }

    /// An authenticator factor's code is asked for: the same field and rules, with no resend, no
    /// countdown and no expiry; a check is the factor's (`.check(id:)` carries the factor's id).
    public mutating func beganAuthenticator(
        factorID: String, attemptsLeft: Int, codeLength: Int = 6, at now: Duration, serverNow: Date
    ) {
        begin(
            Verification(
                id: factorID, status: attemptsLeft > 0 ? .pending : .locked, channel: .sms, to: "",
                codeLength: codeLength, attemptsLeft: attemptsLeft, sendsLeft: 0,
                expiresAt: serverNow.addingTimeInterval(100 * 365 * 86_400), resendAvailableAt: nil,
                createdAt: serverNow),
            authenticator: true, at: now, serverNow: serverNow)
    }

    /// Text was typed, pasted or autofilled at the end of the field.
    public mutating func insert(_ text: String, at now: Duration) -> [Effect] {
        self.now = now
        guard isInputEnabled else { return [] }
        entry.insert(text)
        return afterEdit()
    }

    /// The code field asks to make an edit (a key at the caret, a paste, autofill, a delete,
    /// an undo, marked text); the outcome says whether the field's text changed.
    ///
    /// While input is read-only (verifying, verified, locked, expired, a suggestion being
    /// typed) every edit is refused, so the field goes back to the code and no stray key
    /// arrives later.
    public mutating func edit(
        _ edit: TextEdit, at now: Duration
    ) -> (outcome: TextEditOutcome, effects: [Effect]) {
        self.now = now
        guard isInputEnabled else { return (.refused, []) }
        let outcome = entry.apply(edit)
        guard outcome == .changed else { return (outcome, []) }
        return (outcome, afterEdit())
    }

    /// The hidden text field delivered its whole new text.
    public mutating func setText(_ text: String, at now: Duration) -> [Effect] {
        self.now = now
        guard isInputEnabled else { return [] }
        entry.apply(text: text)
        return afterEdit()
    }

    /// The delete key was pressed (F5: after a rejection it clears the code; F11: a selected cell
    /// is cleared).
    public mutating func deleteBackward(at now: Duration) {
        self.now = now
        guard isInputEnabled else { return }
        entry.deleteBackward()
        _ = afterEdit()
    }

    /// A cell was tapped (F11): a filled cell is selected, so the next key replaces only it; an
    /// empty one gives the selection up.
    public mutating func selectCell(_ index: Int?, at now: Duration) {
        self.now = now
        guard isInputEnabled else { return }
        entry.select(index)
        _ = afterEdit(isSelection: true)
    }

    /// An arrow key moved the selection one cell left (`-1`) or right (`+1`) (F11).
    public mutating func moveSelection(by step: Int, at now: Duration) {
        self.now = now
        guard isInputEnabled else { return }
        entry.moveSelection(by: step)
        _ = afterEdit(isSelection: true)
    }

    /// The app learned a received code; the suggestion bar offers it, naming its source (S1).
    public mutating func offerSuggestion(_ code: String?, source: SuggestionSource = .messages) {
        let normalized = code.map { CodeNormalizer.normalize($0, for: format) }
        suggestion = normalized?.count == format.length ? normalized : nil
        suggestionSource = source
    }

    /// The suggestion bar's source label, such as "From Messages" (S1).
    public var suggestionSourceText: String { text.suggestionSource(suggestionSource) }

    /// The user chose the suggestion: the owner types it in (S1).
    public mutating func acceptSuggestion(at now: Duration) -> [Effect] {
        self.now = now
        guard showsSuggestion, let suggestion else { return [] }
        isTypingSuggestion = true
        return [.typeSuggestion(suggestion)]
    }

    /// One character of an accepted suggestion lands, with a small pop (S1).
    public mutating func typeSuggested(_ character: Character, isLast: Bool, at now: Duration) -> [Effect] {
        self.now = now
        guard isTypingSuggestion else { return [] }
        if isLast { isTypingSuggestion = false }
        entry.insert(String(character))
        haptic(.pop)
        return afterEdit()
    }

    /// The typing of a suggestion was stopped before its last character (the model stopped):
    /// input is taken again, with what landed so far.
    public mutating func suggestionInterrupted() {
        isTypingSuggestion = false
    }

    /// Try again: the first send again after it failed (V11), or the same code checked again after a
    /// network failure (V9).
    public mutating func retry(at now: Duration) -> [Effect] {
        self.now = now
        if startState == .failed { return beginSending() }
        guard canRetryCheck else { return [] }
        canRetryCheck = false
        entry.forgetSubmission()
        return afterEdit()
    }

    /// The service answered a check.
    public mutating func checkAnswered(
        _ result: Result<Verification, VerificationFailure>, at now: Duration, serverNow: Date
    ) -> [Effect] {
        self.now = now
        guard resultPhase == .verifying else { return [] }
        resultPhase = nil
        switch result {
        case .success(let verification):
            adopt(verification, at: now, serverNow: serverNow)
            if verification.status == .approved {
                resultPhase = .verified
                show(text.verified, .success, announce: .assertive)
                haptic(.success)
                return [.complete(verification)]
            }
            switch verification.status {
            // Told as the same refusals are told as errors: shaken, announced, Resend pointed to.
            case .locked:
                setAttemptsLeft(0)
                lockOut()
            case .expired:
                reject(.expired, text.expired)
                pointToResend()
            default:
                resultPhase = statusPhase(verification.status)
                statusMessage = resultPhase.map(messageForStatusPhase)
            }
        case .failure(.incorrectCode(let left)):
            setAttemptsLeft(left)
            if left > 0 {
                reject(.invalid, text.incorrect(attemptsLeft: left))
            } else {
                lockOut()
            }
        case .failure(.locked):
            setAttemptsLeft(0)
            lockOut()
        case .failure(.codeAlreadyUsed):
            reject(.invalid, text.codeAlreadyUsed)
        case .failure(.expired):
            reject(.expired, text.expired)
            pointToResend()
        case .failure(.invalidCodeFormat):
            reject(.invalid, text.invalidFormat(format))
        case .failure(.notPending):
            // The first answer of a code the server took may have been lost: ask how it stands,
            // still verifying, before saying it is no longer active.
            guard let verification else { return closeAsNotPending() }
            resultPhase = .verifying
            refreshing = .afterCheck
            return [.refresh(id: verification.id)]
        case .failure(.notFound):
            resultPhase = .locked
            closeVerification()
            show(text.notFound, .error, announce: .assertive)
        case .failure(.rateLimited(let seconds)):
            canRetryCheck = true
            show(text.rateLimited(retryAfter: seconds), .error, announce: .assertive)
        case .failure(.networkFailure), .failure(.server), .failure(.deliveryFailed),
            .failure(.invalidDestination), .failure(.resendTooSoon), .failure(.maxSendsReached),
            .failure(.destinationRefused), .failure(.destinationBlocked), .failure(.startRefused):
            canRetryCheck = true
            show(text.networkFailure, .error, announce: .assertive)
        }
        return []
    }

    /// The user pressed Resend.
    public mutating func resendPressed(at now: Duration) -> [Effect] {
        self.now = now
        guard isResendEnabled, let verification else { return [] }
        isResending = true
        return [.resend(id: verification.id)]
    }

    /// The service answered a resend (V6).
    @discardableResult
    public mutating func resendAnswered(
        _ result: Result<Verification, VerificationFailure>, at now: Duration, serverNow: Date
    ) -> [Effect] {
        self.now = now
        isResending = false
        // Verified while the resend was under way: whatever the resend answers changes nothing.
        guard resultPhase != .verified else { return [] }
        switch result {
        case .success(let verification):
            newCodeArrived(verification, at: now, serverNow: serverNow)
        case .failure(.resendTooSoon(let seconds)):
            restartCountdown(at: now + .seconds(seconds))
            // An earlier resend whose answer was lost may have sent a code: its expiry is the one.
            return refresh(after: .afterResend)
        case .failure(.maxSendsReached):
            verification?.sendsLeft = 0
            resendAt = nil
            show(text.maxSendsReached, .error, announce: .assertive)
        case .failure(.deliveryFailed):
            show(text.deliveryFailed, .error, announce: .assertive)
        case .failure(.rateLimited(let seconds)):
            restartCountdown(at: now + .seconds(seconds))
            show(text.rateLimited(retryAfter: seconds), .error, announce: .assertive)
        // Refused before anything was sent: the current code stays the one to type.
        case .failure(.startRefused):
            show(text.startRefused, .error, announce: .assertive)
        case .failure(.destinationBlocked(let seconds)):
            show(text.destinationPaused(retryAfter: seconds), .error, announce: .assertive)
        case .failure(.destinationRefused):
            show(text.destinationRefused, .error, announce: .assertive)
        case .failure(.notPending):
            closeVerification()
            resultPhase = .locked
            show(text.notPending, .error, announce: .assertive)
        case .failure(.notFound):
            closeVerification()
            resultPhase = .locked
            show(text.notFound, .error, announce: .assertive)
        case .failure:
            show(text.networkFailure, .error, announce: .assertive)
            // The resend may have gone out with its answer lost: the new code's expiry is the one.
            return refresh(after: .afterResend)
        }
        return []
    }

    /// The service said how the verification stands, after a lost answer (V9).
    public mutating func refreshAnswered(
        _ result: Result<Verification, VerificationFailure>, at now: Duration, serverNow: Date
    ) -> [Effect] {
        self.now = now
        guard let reason = refreshing else { return [] }
        refreshing = nil
        switch reason {
        case .afterCheck:
            guard resultPhase == .verifying else { return [] }
            resultPhase = nil
            if case .success(let verification) = result, verification.status == .approved {
                adopt(verification, at: now, serverNow: serverNow)
                resultPhase = .verified
                show(text.verified, .success, announce: .assertive)
                haptic(.success)
                return [.complete(verification)]
            }
            return closeAsNotPending()
        case .afterResend:
            guard resultPhase != .verified, case .success(let verification) = result,
                verification.status == .pending, let previous = self.verification,
                verification.sendsLeft < previous.sendsLeft
            else {
                if case .success(let verification) = result, resultPhase != .verified,
                    verification.status == .pending
                {
                    adopt(verification, at: now, serverNow: serverNow)
                }
                return []
            }
            // A new code went out: the screen shows it as a resend's answer would have.
            newCodeArrived(verification, at: now, serverNow: serverNow)
            return []
        }
    }

    /// Time passed: countdowns, expiry and the toast move on (V5, V6, V7).
    public mutating func tick(at now: Duration) {
        self.now = now
        if let toastUntil, now >= toastUntil {
            toast = nil
            self.toastUntil = nil
        }
        // Announced once, when Resend can be pressed: a countdown that ends during a check is
        // announced once the check's answer enables Resend (V5).
        if let resendAt, now >= resendAt, !resendAvailabilityAnnounced, isResendEnabled {
            resendAvailabilityAnnounced = true
            announce(text.resendAvailable, .polite)
        }
        if let expiresAt, now >= expiresAt {
            switch phase {
            case .idle, .filling, .invalid:
                reject(.expired, text.expired)
                pointToResend()
            default:
                break
            }
        }
        if pointsToResend, isResendEnabled, phase == .locked || phase == .expired {
            focusResendTrigger += 1
            pointsToResend = false
        }
    }

    /// The next time at which ``tick(at:)`` would change something, if any.
    public func nextDeadline() -> Duration? {
        var candidates: [Duration] = []
        if let toastUntil { candidates.append(toastUntil) }
        if let resendAt {
            if resendAt > now {
                // The label changes each time the whole seconds left drop by one.
                let left = Self.ceilSeconds(resendAt - now)
                candidates.append(resendAt - .seconds(left - 1))
            } else if !resendAvailabilityAnnounced, isResendEnabled {
                candidates.append(now)
            }
        }
        if let expiresAt, [.idle, .filling, .invalid].contains(phase) {
            candidates.append(max(expiresAt, now))
        }
        return candidates.min()
    }

    // MARK: - Helpers

    /// What follows a change of the entry; a selection moved changes no character.
    private mutating func afterEdit(isSelection: Bool = false) -> [Effect] {
        if resultPhase == .invalid, !entry.isRejected {
            resultPhase = nil
            statusMessage = nil
        }
        if canRetryCheck, !entry.isComplete {
            canRetryCheck = false
            statusMessage = nil
            // The code the server never judged may be typed again, and is then sent (V9).
            entry.forgetSubmission()
        }
        if !isSelection, resultPhase == nil, entry.isLastSubmission, let lastRejection {
            // The rejected code typed again: it is not sent again, and the rejection shows again.
            reject(.invalid, lastRejection)
            return []
        }
        guard resultPhase == nil, let verification, let code = entry.takeSubmission() else { return [] }
        resultPhase = .verifying
        canRetryCheck = false
        // A rejection belongs to the code it judged; a code sent now has none until its answer.
        lastRejection = nil
        // Assertive, so "Verifying…" is never spoken after the answer it waits for.
        show(text.verifying, .progress, announce: .assertive)
        return [.check(id: verification.id, code: code)]
    }

    private mutating func adopt(_ verification: Verification, at now: Duration, serverNow: Date) {
        let previous = self.verification
        self.verification = verification
        expiresAt = now + Self.duration(from: serverNow, to: verification.expiresAt)
        if let available = verification.resendAvailableAt, verification.sendsLeft > 0 {
            let at = now + Self.duration(from: serverNow, to: available)
            if previous?.resendAvailableAt != verification.resendAvailableAt || resendAt == nil {
                restartCountdown(at: at)
            }
        } else {
            resendAt = nil
        }
    }

    /// A new code was sent: cleared cells, its expiry and countdown, the toast (V6).
    private mutating func newCodeArrived(_ verification: Verification, at now: Duration, serverNow: Date) {
        pointsToResend = false
        adopt(verification, at: now, serverNow: serverNow)
        entry = CodeEntry(format: format)
        suggestion = nil
        resultPhase = statusPhase(verification.status)
        statusMessage = nil
        canRetryCheck = false
        lastRejection = nil
        serial += 1
        toast = Toast(text.newCodeSent, serial: serial)
        toastUntil = now + Self.toastDuration
        announce(text.newCodeSent, .polite)
    }

    /// Asks how the verification stands, once at a time.
    private mutating func refresh(after reason: Refresh) -> [Effect] {
        guard refreshing == nil, let verification else { return [] }
        refreshing = reason
        return [.refresh(id: verification.id)]
    }

    /// Approved or canceled elsewhere: input and Resend off, said once.
    private mutating func closeAsNotPending() -> [Effect] {
        resultPhase = .locked
        closeVerification()
        show(text.notPending, .error, announce: .assertive)
        return []
    }

    private mutating func restartCountdown(at time: Duration) {
        resendAt = time
        resendAvailabilityAnnounced = time <= now
    }

    private mutating func setAttemptsLeft(_ left: Int) {
        verification?.attemptsLeft = left
        if left == 0 { verification?.status = .locked }
    }

    private mutating func closeVerification() {
        verification?.sendsLeft = 0
        resendAt = nil
    }

    /// The last attempt is gone: locked, with Resend offered, or a recovery code for an authenticator.
    private mutating func lockOut() {
        if isAuthenticator {
            reject(.locked, text.authenticatorLocked)
        } else if verification?.sendsLeft == 0 {
            // "Request a new code" would ask for what cannot be had.
            reject(.locked, text.maxSendsReached)
        } else {
            reject(.locked, text.locked)
            pointToResend()
        }
    }

    /// Moves focus to Resend now if it can be pressed, else once its countdown ends; nowhere for an
    /// authenticator factor or when no sends are left.
    private mutating func pointToResend() {
        guard !isAuthenticator, (verification?.sendsLeft ?? 0) > 0 else { return }
        if isResendEnabled {
            focusResendTrigger += 1
            pointsToResend = false
        } else {
            pointsToResend = true
        }
    }

    private mutating func reject(_ phase: VerificationPhase, _ message: String) {
        resultPhase = phase
        lastRejection = phase == .invalid ? message : nil
        entry.markRejected()
        shakeTrigger += 1
        haptic(.error)
        show(message, .error, announce: .assertive)
    }

    private mutating func show(_ text: String, _ role: ColorRole, announce priority: Announcement.Priority) {
        statusMessage = StatusMessage(text, role: role)
        announce(text, priority)
    }

    private mutating func announce(_ text: String, _ priority: Announcement.Priority) {
        serial += 1
        announcements.append(Announcement(text, priority: priority, serial: serial))
        if announcements.count > 32 { announcements.removeFirst(announcements.count - 32) }
    }

    private mutating func haptic(_ haptic: Haptic) {
        serial += 1
        hapticEvent = HapticEvent(haptic, serial: serial)
    }

    private func statusPhase(_ status: VerificationStatus) -> VerificationPhase? {
        switch status {
        case .pending: nil
        case .approved: .verified
        case .locked: .locked
        case .expired: .expired
        case .canceled: .locked
        }
    }

    private func messageForStatusPhase(_ phase: VerificationPhase) -> StatusMessage {
        switch phase {
        case .verified: StatusMessage(text.verified, role: .success)
        case .expired: StatusMessage(text.expired, role: .error)
        case .locked where verification?.status == .canceled:
            StatusMessage(text.notPending, role: .error)
        default: StatusMessage(isAuthenticator ? text.authenticatorLocked : text.locked, role: .error)
        }
    }

    private static func duration(from start: Date, to end: Date) -> Duration {
        .milliseconds(Int64((end.timeIntervalSince(start) * 1000).rounded()))
    }

    static func ceilSeconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }
}
