import Foundation
import Testing

@testable import OTPCore

/// The screen's authenticator mode: the code comes from an app, so nothing is sent, resent or expires.
@Suite struct AuthenticatorModeTests {
    let wall = Date(timeIntervalSince1970: 1_795_000_000)

    func started(attemptsLeft: Int = 10, language: TextLanguage = .english) -> VerificationMachine {
        var machine = VerificationMachine(language: language)
        machine.isFocused = true
        machine.beganAuthenticator(
            factorID: "tf_test", attemptsLeft: attemptsLeft, at: .zero, serverNow: wall)
        return machine
    }

    @Test("it asks for the authenticator's code, shows no Resend and no countdown, and never expires")
    func prompt() {
        var machine = started()
        #expect(machine.isAuthenticator)
        #expect(machine.sentToText == "Enter the code from your authenticator app.")
        #expect(!machine.isResendVisible)
        #expect(!machine.isResendEnabled)
        #expect(machine.resendSecondsLeft == nil)
        machine.tick(at: .seconds(86_400 * 30))
        #expect(machine.phase == .idle)
        #expect(
            machine.insert("482019", at: .seconds(86_400 * 30)) == [.check(id: "tf_test", code: "482019")])
    }

    @Test("a replayed code says so and lets the next code in; wrong codes count down to a lock with recovery")
    func answers() {
        var machine = started(attemptsLeft: 2)
        _ = machine.insert("111111", at: .zero)
        _ = machine.checkAnswered(.failure(.codeAlreadyUsed), at: .zero, serverNow: wall)
        #expect(machine.phase == .invalid)
        #expect(machine.statusMessage?.text == "That code was already used. Wait for the next one.")
        #expect(machine.attemptsLeft == 2)
        #expect(machine.insert("2", at: .zero).isEmpty)
        #expect(machine.entry.value == "2")
        _ = machine.insert("22222", at: .zero)
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 1)), at: .zero, serverNow: wall)
        #expect(machine.statusMessage?.text == "Code doesn't match. 1 attempt left.")
        _ = machine.insert("333333", at: .zero)
        let resendFocus = machine.focusResendTrigger
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 0)), at: .zero, serverNow: wall)
        #expect(machine.phase == .locked)
        #expect(machine.statusMessage?.text == "Too many attempts. Sign in with a recovery code.")
        #expect(machine.focusResendTrigger == resendFocus, "there is no Resend to move focus to")
    }

    @Test("a right code verifies as on the sent-code screen")
    func verified() {
        var machine = started()
        _ = machine.insert("482019", at: .zero)
        let approved = Verification(
            id: "tf_test", status: .approved, channel: .sms, to: "", codeLength: 6, attemptsLeft: 10,
            sendsLeft: 0,
            expiresAt: wall.addingTimeInterval(3600), resendAvailableAt: nil, createdAt: wall)
        let effects = machine.checkAnswered(.success(approved), at: .zero, serverNow: wall)
        #expect(effects == [.complete(approved)])
        #expect(machine.phase == .verified)
    }

    @Test("the prompt, the replay and the lock read in every language", arguments: TextLanguage.allCases)
    func languages(language: TextLanguage) {
        let text = ScreenText(language)
        for sentence in [text.authenticatorPrompt, text.codeAlreadyUsed, text.authenticatorLocked] {
            #expect(!sentence.isEmpty)
            #expect(language == .english || sentence != ScreenText.english.string(.authenticatorPrompt))
        }
        #expect(started(language: language).sentToText == text.authenticatorPrompt)
    }

    @Test("a sent-code verification after an authenticator one is a sent-code screen again")
    func back() {
        var machine = started()
        machine.began(sampleVerification(length: 6, attemptsLeft: 3, at: wall), at: .zero, serverNow: wall)
        #expect(!machine.isAuthenticator)
        #expect(machine.isResendVisible)
        #expect(machine.sentToText == "We sent a 6-digit code to")
    }
}
