import Foundation
import Testing

@testable import OTPCore

@Suite struct VerificationMachineTests {
    let wall = Date(timeIntervalSince1970: 1_795_000_000)

    /// A machine whose field has the keyboard, as after the view reports focus.
    func started(length: Int = 6, attemptsLeft: Int = 3) -> VerificationMachine {
        var machine = VerificationMachine()
        machine.isFocused = true
        machine.began(
            sampleVerification(length: length, attemptsLeft: attemptsLeft, at: wall), at: .zero,
            serverNow: wall
        )
        return machine
    }

    func submit(_ machine: inout VerificationMachine, _ code: String) -> [VerificationMachine.Effect] {
        machine.insert(code, at: machine.now)
    }

    @Test("V1: the screen shows the title line and the masked destination")
    func header() {
        let machine = started()
        #expect(machine.sentToText == "We sent a 6-digit code to")
        #expect(machine.destination == "+1 ••• ••• 0100")
        #expect(machine.phase == .idle)
    }

    @Test("F7: input is read-only before a code was sent")
    func noInputBeforeStart() {
        var machine = VerificationMachine()
        #expect(!machine.isInputEnabled)
        #expect(machine.insert("482019", at: .zero).isEmpty)
        #expect(machine.entry.value.isEmpty)
    }

    @Test("V2: a complete code submits once, shows and announces Verifying…, dims the cells")
    func verifying() {
        var machine = started()
        #expect(machine.insert("48201", at: .zero).isEmpty)
        #expect(machine.phase == .filling)
        let effects = machine.insert("9", at: .zero)
        #expect(effects == [.check(id: "vf_test", code: "482019")])
        #expect(machine.phase == .verifying)
        #expect(machine.statusMessage == StatusMessage("Verifying…", role: .progress))
        #expect(machine.announcements.last?.text == "Verifying…")
        #expect(machine.cells.allSatisfy { $0.role == .progress })
        #expect(!machine.isInputEnabled)
        #expect(machine.insert("1", at: .zero).isEmpty)
        #expect(machine.setText("", at: .zero).isEmpty)
        #expect(machine.entry.value == "482019")
    }

    @Test("V3 F5 F6: a wrong code says attempts left, shakes once, keeps the digits in the error colour")
    func wrongCode() {
        var machine = started()
        _ = submit(&machine, "111111")
        let shakes = machine.shakeTrigger
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 2)), at: .zero, serverNow: wall)
        #expect(machine.phase == .invalid)
        #expect(machine.statusMessage == StatusMessage("Code doesn't match. 2 attempts left.", role: .error))
        #expect(machine.announcements.last?.text == "Code doesn't match. 2 attempts left.")
        #expect(machine.shakeTrigger == shakes + 1)
        #expect(machine.hapticEvent?.haptic == .error)
        #expect(machine.cells.map(\.text).joined() == "111111")
        #expect(machine.cells.allSatisfy { $0.role == .error })
        #expect(machine.attemptsLeft == 2)
        _ = machine.insert("4", at: .zero)
        #expect(machine.entry.value == "4")
        #expect(machine.phase == .filling)
        #expect(machine.statusMessage == nil)
    }

    @Test("V3: one attempt left is singular")
    func singular() {
        var machine = started()
        _ = submit(&machine, "111111")
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 1)), at: .zero, serverNow: wall)
        #expect(machine.statusMessage?.text == "Code doesn't match. 1 attempt left.")
    }

    @Test("V4: the last attempt locks the cells and points to Resend once it can be pressed")
    func lock() {
        var machine = started()
        _ = submit(&machine, "111111")
        let focus = machine.focusResendTrigger
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 0)), at: .zero, serverNow: wall)
        #expect(machine.phase == .locked)
        #expect(machine.statusMessage?.text == "Too many attempts. Request a new code.")
        // Resend is still counting down: a disabled button takes no focus, so it moves there when
        // the countdown ends, once.
        #expect(!machine.isResendEnabled)
        #expect(machine.focusResendTrigger == focus)
        machine.tick(at: .seconds(29))
        #expect(machine.focusResendTrigger == focus)
        machine.tick(at: .seconds(30))
        #expect(machine.isResendEnabled)
        #expect(machine.focusResendTrigger == focus + 1)
        machine.tick(at: .seconds(31))
        #expect(machine.focusResendTrigger == focus + 1)
        #expect(!machine.isInputEnabled)
        #expect(machine.cells.allSatisfy { $0.role == .disabled })
        #expect(machine.insert("2", at: .zero).isEmpty)
    }

    @Test("V4: a lock with no sends left says so, and points to nothing")
    func lockWithoutSends() {
        var machine = VerificationMachine()
        machine.isFocused = true
        var last = sampleVerification(at: wall)
        last.sendsLeft = 0
        machine.began(last, at: .zero, serverNow: wall)
        _ = submit(&machine, "111111")
        let focus = machine.focusResendTrigger
        let shakes = machine.shakeTrigger
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 0)), at: .zero, serverNow: wall)
        #expect(machine.phase == .locked)
        #expect(machine.statusMessage?.text == ScreenText.english.maxSendsReached)
        #expect(machine.shakeTrigger == shakes + 1)
        machine.tick(at: .seconds(60))
        #expect(machine.focusResendTrigger == focus)
    }

    @Test("V3 V4 V7: a check answered 200 with a locked or expired verification is told as a refusal")
    func refusalAsStatus() {
        for (status, phase, sentence) in [
            (VerificationStatus.locked, VerificationPhase.locked, ScreenText.english.locked),
            (.expired, .expired, ScreenText.english.expired),
        ] {
            var machine = started()
            _ = submit(&machine, "111111")
            let shakes = machine.shakeTrigger
            var answer = sampleVerification(at: wall)
            answer.status = status
            _ = machine.checkAnswered(.success(answer), at: .seconds(31), serverNow: wall)
            #expect(machine.phase == phase)
            #expect(machine.statusMessage?.text == sentence)
            #expect(machine.shakeTrigger == shakes + 1, "\(status)")
            #expect(machine.announcements.last?.text == sentence)
        }
    }

    @Test("V4: a locked answer from the server locks too")
    func lockedAnswer() {
        var machine = started()
        _ = submit(&machine, "111111")
        _ = machine.checkAnswered(.failure(.locked), at: .zero, serverNow: wall)
        #expect(machine.phase == .locked)
        #expect(machine.attemptsLeft == 0)
    }

    @Test("V5: Resend counts down in m:ss, then reads Resend code and announces once")
    func countdown() {
        var machine = started()
        #expect(machine.resendLabel == "Resend in 0:30")
        #expect(!machine.isResendEnabled)
        machine.tick(at: .milliseconds(6_500))
        #expect(machine.resendLabel == "Resend in 0:24")
        #expect(machine.nextDeadline() == .seconds(7))
        #expect(!machine.announcements.contains { $0.text.hasPrefix("Resend in") })
        machine.tick(at: .seconds(30))
        #expect(machine.resendLabel == "Resend code")
        #expect(machine.isResendEnabled)
        machine.tick(at: .seconds(31))
        machine.tick(at: .seconds(40))
        #expect(machine.announcements.filter { $0.text == "You can request a new code" }.count == 1)
    }

    @Test("V5: long cooldowns show minutes")
    func minutes() {
        #expect(ScreenText.english.resendIn(seconds: 300) == "Resend in 5:00")
        #expect(ScreenText.english.resendIn(seconds: 61) == "Resend in 1:01")
        #expect(ScreenText.english.resendIn(seconds: 9) == "Resend in 0:09")
    }

    @Test("V6: a new code clears the cells, resets attempts, restarts the countdown, shows a toast")
    func resend() {
        var machine = started()
        machine.offerSuggestion("482019")
        _ = submit(&machine, "111111")
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 0)), at: .zero, serverNow: wall)
        machine.tick(at: .seconds(30))
        let effects = machine.resendPressed(at: .seconds(30))
        #expect(effects == [.resend(id: "vf_test")])
        #expect(!machine.isResendEnabled)
        let later = wall.addingTimeInterval(30)
        machine.resendAnswered(
            .success(sampleVerification(attemptsLeft: 3, sendsLeft: 3, resendIn: 60, at: later)),
            at: .seconds(30),
            serverNow: later)
        #expect(machine.phase == .idle)
        #expect(machine.entry.value.isEmpty)
        #expect(machine.attemptsLeft == 3)
        #expect(machine.resendLabel == "Resend in 1:00")
        #expect(machine.toast?.text == "New code sent")
        #expect(machine.announcements.last?.text == "New code sent")
        #expect(machine.isInputEnabled)
        #expect(machine.suggestion == nil, "the old code's suggestion is withdrawn")
        machine.tick(at: .seconds(32))
        #expect(machine.toast == nil)
    }

    @Test("V6: the same code typed after a new one is submitted again")
    func sameCodeAfterResend() {
        var machine = started()
        _ = submit(&machine, "111111")
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 0)), at: .zero, serverNow: wall)
        machine.tick(at: .seconds(30))
        _ = machine.resendPressed(at: .seconds(30))
        machine.resendAnswered(.success(sampleVerification(at: wall)), at: .seconds(30), serverNow: wall)
        #expect(submit(&machine, "111111") == [.check(id: "vf_test", code: "111111")])
    }

    @Test("V6: resend refusals keep the screen usable")
    func resendRefusals() {
        var machine = started()
        machine.tick(at: .seconds(30))
        _ = machine.resendPressed(at: .seconds(30))
        machine.resendAnswered(.failure(.resendTooSoon(retryAfter: 12)), at: .seconds(30), serverNow: wall)
        #expect(machine.resendLabel == "Resend in 0:12")
        machine.tick(at: .seconds(42))
        _ = machine.resendPressed(at: .seconds(42))
        machine.resendAnswered(.failure(.deliveryFailed), at: .seconds(42), serverNow: wall)
        #expect(machine.statusMessage?.text == "Couldn't send a new code. Try again.")
        #expect(machine.isResendEnabled)
        _ = machine.resendPressed(at: .seconds(42))
        machine.resendAnswered(.failure(.maxSendsReached), at: .seconds(42), serverNow: wall)
        #expect(!machine.isResendEnabled)
        #expect(machine.statusMessage?.text == ScreenText.english.maxSendsReached)
    }

    @Test("V6: a resend the server's guards refuse says why, asks for no refresh and keeps the code")
    func resendGuarded() {
        let refusals: [(VerificationFailure, String)] = [
            (.startRefused, ScreenText.english.startRefused),
            (.destinationBlocked(retryAfter: 90), ScreenText.english.destinationPaused(retryAfter: 90)),
            (.destinationRefused, ScreenText.english.destinationRefused),
        ]
        for (failure, sentence) in refusals {
            var machine = started()
            machine.tick(at: .seconds(30))
            _ = machine.resendPressed(at: .seconds(30))
            let effects = machine.resendAnswered(.failure(failure), at: .seconds(30), serverNow: wall)
            #expect(effects.isEmpty, "\(failure): nothing was sent, so there is nothing to look up")
            #expect(machine.statusMessage?.text == sentence)
            #expect(machine.statusMessage?.text != ScreenText.english.networkFailure)
            #expect(machine.isInputEnabled, "\(failure): the current code can still be typed")
            #expect(submit(&machine, "482019") == [.check(id: "vf_test", code: "482019")])
        }
    }

    @Test("V7: an expired code is rejected with its own message and offers Resend")
    func expiredAnswer() {
        var machine = started()
        machine.tick(at: .seconds(30))
        _ = submit(&machine, "482019")
        let shakes = machine.shakeTrigger
        _ = machine.checkAnswered(.failure(.expired), at: .seconds(31), serverNow: wall)
        #expect(machine.phase == .expired)
        #expect(machine.statusMessage == StatusMessage("This code has expired.", role: .error))
        #expect(machine.shakeTrigger == shakes + 1)
        #expect(machine.isResendEnabled)
    }

    @Test("V7: the code expires on screen when its lifetime passes")
    func expiresOnClock() {
        var machine = started()
        _ = machine.insert("48", at: .seconds(10))
        #expect(machine.nextDeadline() == .seconds(11))
        machine.tick(at: .seconds(299))
        #expect(machine.phase == .filling)
        machine.tick(at: .seconds(300))
        #expect(machine.phase == .expired)
        #expect(machine.announcements.last?.text == "This code has expired.")
        #expect(!machine.isInputEnabled)
    }

    @Test("V8: a right code shows and announces Verified, plays success, locks, completes")
    func verified() {
        var machine = started()
        _ = submit(&machine, "482019")
        var approved = sampleVerification(at: wall)
        approved.status = .approved
        let effects = machine.checkAnswered(.success(approved), at: .zero, serverNow: wall)
        #expect(effects == [.complete(approved)])
        #expect(machine.phase == .verified)
        #expect(machine.statusMessage == StatusMessage("Verified", role: .success))
        #expect(machine.announcements.last?.text == "Verified")
        #expect(machine.hapticEvent?.haptic == .success)
        #expect(machine.cells.allSatisfy { $0.role == .success })
        #expect(!machine.isInputEnabled)
        #expect(!machine.isResendEnabled)
        #expect(!machine.isResendVisible)
        machine.tick(at: .seconds(30))
        #expect(!machine.announcements.contains { $0.text == ScreenText.english.resendAvailable })
    }

    @Test("V9: a network failure keeps the code, costs no attempt on screen, and can be retried")
    func networkFailure() {
        var machine = started()
        _ = submit(&machine, "482019")
        _ = machine.checkAnswered(.failure(.networkFailure), at: .zero, serverNow: wall)
        #expect(machine.statusMessage?.text == "Couldn't reach the server. Try again.")
        #expect(machine.entry.value == "482019")
        #expect(machine.attemptsLeft == 3)
        #expect(machine.canRetry)
        #expect(machine.insert("1", at: .zero).isEmpty)
        #expect(machine.retry(at: .zero) == [.check(id: "vf_test", code: "482019")])
    }

    @Test(
        "V9: a code the server never judged, edited and typed again, is sent, never answered with an old rejection"
    )
    func unansweredCodeTypedAgain() {
        var machine = started()
        _ = submit(&machine, "111111")
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 2)), at: .zero, serverNow: wall)
        _ = machine.setText("", at: .zero)
        _ = submit(&machine, "222222")
        _ = machine.checkAnswered(.failure(.networkFailure), at: .zero, serverNow: wall)
        let shakes = machine.shakeTrigger
        machine.deleteBackward(at: .zero)
        #expect(!machine.canRetry)
        #expect(machine.insert("2", at: .zero) == [.check(id: "vf_test", code: "222222")])
        #expect(machine.shakeTrigger == shakes)
        #expect(machine.statusMessage?.text == "Verifying…")
        #expect(!machine.announcements.suffix(2).contains { $0.text.hasPrefix("Code doesn't match") })
        // Pasted whole over itself, the unanswered code is not replayed as rejected either.
        _ = machine.checkAnswered(.failure(.networkFailure), at: .zero, serverNow: wall)
        #expect(machine.setText("222222", at: .zero).isEmpty)
        #expect(machine.shakeTrigger == shakes)
        #expect(machine.canRetry)
        #expect(machine.retry(at: .zero) == [.check(id: "vf_test", code: "222222")])
    }

    @Test("V8: a resend answered after the code was verified changes nothing")
    func resendAfterVerified() {
        var machine = started()
        machine.tick(at: .seconds(31))
        #expect(machine.resendPressed(at: .seconds(31)) == [.resend(id: "vf_test")])
        _ = machine.insert("482019", at: .seconds(32))
        var approved = sampleVerification(at: wall)
        approved.status = .approved
        _ = machine.checkAnswered(.success(approved), at: .seconds(33), serverNow: wall)
        let said = machine.announcements.count
        for late in [VerificationFailure.notPending, .networkFailure, .deliveryFailed] {
            machine.resendAnswered(.failure(late), at: .seconds(34), serverNow: wall)
            #expect(machine.phase == .verified)
            #expect(machine.statusMessage == StatusMessage("Verified", role: .success))
        }
        machine.resendAnswered(.success(sampleVerification(at: wall)), at: .seconds(34), serverNow: wall)
        #expect(machine.phase == .verified)
        #expect(machine.toast == nil)
        #expect(machine.announcements.count == said)
    }

    @Test("V5: a countdown that ends during a check is announced once the answer enables Resend")
    func resendAvailableAfterCheck() {
        var machine = started()
        _ = machine.insert("111111", at: .seconds(29))
        #expect(machine.phase == .verifying)
        machine.tick(at: .seconds(30))
        #expect(!machine.isResendEnabled)
        #expect(machine.nextDeadline() == nil || machine.nextDeadline()! > .seconds(30))
        _ = machine.checkAnswered(
            .failure(.incorrectCode(attemptsLeft: 2)), at: .seconds(31), serverNow: wall)
        #expect(machine.isResendEnabled)
        #expect(machine.nextDeadline() == .seconds(31))
        machine.tick(at: .seconds(31))
        let available = machine.announcements.filter { $0.text == ScreenText.english.resendAvailable }
        #expect(available.count == 1)
        machine.tick(at: .seconds(32))
        #expect(machine.announcements.filter { $0.text == ScreenText.english.resendAvailable }.count == 1)
    }

    @Test("V9: the screen mirrors the server's attempts, not its own count")
    func serverIsAuthority() {
        var machine = started(attemptsLeft: 3)
        _ = submit(&machine, "111111")
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 1)), at: .zero, serverNow: wall)
        #expect(machine.attemptsLeft == 1)
        #expect(machine.statusMessage?.text == "Code doesn't match. 1 attempt left.")
    }

    @Test("V9: a rate limit on a check says when to try again and keeps the code")
    func rateLimitedCheck() {
        var machine = started()
        _ = submit(&machine, "482019")
        _ = machine.checkAnswered(.failure(.rateLimited(retryAfter: 42)), at: .zero, serverNow: wall)
        #expect(machine.statusMessage?.text == "Too many tries. Try again in 0:42.")
        #expect(machine.entry.value == "482019")
        #expect(machine.canRetry)
    }

    @Test(
        "V9: a verification closed elsewhere turns input and Resend off, once the service says how it stands")
    func notPending() {
        var machine = started()
        _ = submit(&machine, "482019")
        #expect(
            machine.checkAnswered(.failure(.notPending), at: .zero, serverNow: wall) == [
                .refresh(id: "vf_test")
            ])
        #expect(machine.phase == .verifying)
        #expect(!machine.isInputEnabled)
        var canceled = sampleVerification(at: wall)
        canceled.status = .canceled
        #expect(machine.refreshAnswered(.success(canceled), at: .zero, serverNow: wall).isEmpty)
        #expect(!machine.isInputEnabled)
        #expect(!machine.isResendEnabled)
        #expect(machine.statusMessage?.text == ScreenText.english.notPending)
        // A service that cannot say: the same.
        var offline = started()
        _ = submit(&offline, "482019")
        _ = offline.checkAnswered(.failure(.notPending), at: .zero, serverNow: wall)
        _ = offline.refreshAnswered(.failure(.networkFailure), at: .zero, serverNow: wall)
        #expect(offline.statusMessage?.text == ScreenText.english.notPending)
        #expect(!offline.isResendEnabled)
    }

    @Test("V8 V9: a check retried after its lost answer approved the code is Verified, and completes")
    func approvedBehindLostAnswer() {
        var machine = started()
        _ = submit(&machine, "482019")
        _ = machine.checkAnswered(.failure(.networkFailure), at: .zero, serverNow: wall)
        #expect(machine.retry(at: .zero) == [.check(id: "vf_test", code: "482019")])
        #expect(
            machine.checkAnswered(.failure(.notPending), at: .zero, serverNow: wall) == [
                .refresh(id: "vf_test")
            ])
        var approved = sampleVerification(at: wall)
        approved.status = .approved
        #expect(
            machine.refreshAnswered(.success(approved), at: .zero, serverNow: wall) == [.complete(approved)])
        #expect(machine.phase == .verified)
        #expect(machine.announcements.last?.text == "Verified")
        #expect(
            machine.refreshAnswered(.success(approved), at: .zero, serverNow: wall).isEmpty, "answered once")
    }

    @Test("V6 V9: a resend whose answer was lost is asked after; a code it sent shows as a resend's would")
    func resendBehindLostAnswer() {
        var machine = started()
        machine.tick(at: .seconds(31))
        _ = machine.insert("12", at: .seconds(31))
        _ = machine.resendPressed(at: .seconds(31))
        let effects = machine.resendAnswered(.failure(.networkFailure), at: .seconds(32), serverNow: wall)
        #expect(effects == [.refresh(id: "vf_test")])
        var resent = sampleVerification(sendsLeft: 3, expiresIn: 331, resendIn: 91, at: wall)
        resent.attemptsLeft = 3
        #expect(machine.refreshAnswered(.success(resent), at: .seconds(33), serverNow: wall).isEmpty)
        #expect(machine.toast?.text == ScreenText.english.newCodeSent)
        #expect(machine.entry.value.isEmpty)
        // The new code's expiry: 331 s after the answer, not the first code's 300 s.
        machine.tick(at: .seconds(301))
        #expect(machine.phase != .expired)
        // No code went out: the screen keeps its code and shows no toast.
        var same = started()
        same.tick(at: .seconds(31))
        _ = same.resendPressed(at: .seconds(31))
        _ = same.resendAnswered(.failure(.networkFailure), at: .seconds(32), serverNow: wall)
        _ = same.refreshAnswered(.success(sampleVerification(at: wall)), at: .seconds(33), serverNow: wall)
        #expect(same.toast == nil)
    }

    @Test("F8 F9: the next cell is highlighted while focused; masked mode shows dots")
    func cellsHighlightAndMask() {
        var machine = started()
        _ = machine.insert("48", at: .zero)
        #expect(machine.cells.map(\.isNext) == [false, false, true, false, false, false])
        machine.isFocused = false
        #expect(machine.cells.allSatisfy { !$0.isNext })
        machine.isMasked = true
        #expect(machine.cells.map(\.text) == ["•", "•", "", "", "", ""])
        #expect(machine.accessibilityValue == "2 of 6 digits")
    }

    @Test("F7: every phase maps to its cell colour role")
    func phaseRoles() {
        var machine = started()
        #expect(machine.cells.allSatisfy { $0.role == .neutral })
        _ = submit(&machine, "482019")
        #expect(machine.cells.allSatisfy { $0.role == .progress })
    }

    @Test("S1: the suggestion shows only while focused and empty, and types in as one action")
    func suggestion() {
        var machine = started()
        machine.offerSuggestion("482 019")
        #expect(machine.showsSuggestion)
        machine.isFocused = false
        #expect(!machine.showsSuggestion)
        machine.isFocused = true
        _ = machine.insert("1", at: .zero)
        #expect(!machine.showsSuggestion)
        machine.deleteBackward(at: .zero)
        #expect(machine.acceptSuggestion(at: .zero) == [.typeSuggestion("482019")])
        #expect(!machine.isInputEnabled)
        var effects: [VerificationMachine.Effect] = []
        for (index, character) in "482019".enumerated() {
            effects = machine.typeSuggested(
                character, isLast: index == 5, at: .milliseconds(60 * (index + 1)))
            #expect(machine.hapticEvent?.haptic == .pop)
        }
        #expect(effects == [.check(id: "vf_test", code: "482019")])
        machine.offerSuggestion("12")
        #expect(machine.suggestion == nil)
    }

    @Test("F2: the server's code length wins over the screen's format")
    func lengthFromServer() {
        var machine = VerificationMachine(format: CodeFormat(length: 6))
        machine.began(sampleVerification(length: 8, at: wall), at: .zero, serverNow: wall)
        #expect(machine.cells.count == 8)
        #expect(machine.sentToText == "We sent an 8-digit code to")
    }
}
