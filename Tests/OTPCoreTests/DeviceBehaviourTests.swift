import Foundation
import Testing

@testable import OTPCore

/// Behaviours a real device shows that the views only forward: expiry on the screen's timer,
/// read-only input, the keyboard after success, the suggestion's source, later parameters.
@Suite struct DeviceBehaviourTests {
    let wall = Date(timeIntervalSince1970: 1_795_000_000)

    func started() -> VerificationMachine {
        var machine = VerificationMachine()
        machine.isFocused = true
        machine.began(sampleVerification(at: wall), at: .zero, serverNow: wall)
        return machine
    }

    @Test("F6 V7: a code that expires on the screen's timer shakes and plays the error haptic once")
    func expiryShakes() {
        var machine = started()
        _ = machine.insert("48", at: .seconds(1))
        let shakes = machine.shakeTrigger
        machine.tick(at: .seconds(300))
        #expect(machine.phase == .expired)
        #expect(machine.shakeTrigger == shakes + 1)
        #expect(machine.hapticEvent?.haptic == .error)
        let serial = machine.hapticEvent?.serial
        machine.tick(at: .seconds(301))
        #expect(machine.shakeTrigger == shakes + 1, "expiry shakes once")
        #expect(machine.hapticEvent?.serial == serial)
    }

    @Test("F7: every edit is refused while verifying, verified, locked, expired or typing a suggestion")
    func readOnly() {
        var verifying = started()
        _ = verifying.insert("482019", at: .zero)
        #expect(verifying.edit(TextEdit(range: 6..<6, replacement: "1"), at: .zero).outcome == .refused)
        #expect(verifying.edit(TextEdit(range: 5..<6, replacement: ""), at: .zero).outcome == .refused)
        #expect(verifying.entry.value == "482019")

        var expired = started()
        expired.tick(at: .seconds(300))
        #expect(expired.edit(TextEdit(range: 0..<0, replacement: "1"), at: .seconds(300)).outcome == .refused)

        var typing = started()
        typing.offerSuggestion("482019")
        _ = typing.acceptSuggestion(at: .zero)
        #expect(typing.edit(TextEdit(range: 0..<0, replacement: "7"), at: .zero).outcome == .refused)
        _ = typing.typeSuggested("4", isLast: false, at: .zero)
        #expect(typing.entry.value == "4")

        var editable = started()
        #expect(editable.edit(TextEdit(range: 0..<0, replacement: "7"), at: .zero).outcome == .changed)
        #expect(editable.edit(TextEdit(range: 0..<0, replacement: "x"), at: .zero).outcome == .refused)
        #expect(
            editable.edit(TextEdit(range: 0..<0, replacement: "ｘ", isComposing: true), at: .zero).outcome
                == .composing)
    }

    @Test("seed 003: the keyboard goes away once the code is verified, not before")
    func keyboardAfterSuccess() {
        var machine = started()
        _ = machine.insert("482019", at: .zero)
        #expect(machine.keepsKeyboard)
        var approved = sampleVerification(at: wall)
        approved.status = .approved
        _ = machine.checkAnswered(.success(approved), at: .zero, serverNow: wall)
        #expect(!machine.keepsKeyboard)
    }

    @Test("S1: the suggestion bar names where the code came from, and shows only with focus")
    func suggestionSource() {
        var machine = started()
        machine.offerSuggestion("482019")
        #expect(machine.suggestionSourceText == "From Messages")
        machine.offerSuggestion("482019", source: .mail)
        #expect(machine.suggestionSourceText == "From Mail")
        #expect(
            ScreenText.english.suggestionLabel(code: "482019", source: .link)
                == "Fill in code 482019, From a link")
        machine.isFocused = false
        #expect(!machine.showsSuggestion, "no keyboard, no bar")
        #expect(machine.cells.allSatisfy { !$0.isNext }, "no keyboard, no next-cell highlight")
        machine.isFocused = true
        #expect(machine.showsSuggestion)
        var german = VerificationMachine(language: .german)
        german.offerSuggestion("482019", source: .notification)
        #expect(german.suggestionSourceText != "From a notification")
    }

    @Test("a field on its own takes a new format passed later; the old code is dropped")
    func laterFormat() {
        var field = CodeFieldState()
        _ = field.edit("4820")
        field.setFormat(CodeFormat(length: 4))
        #expect(field.format.length == 4)
        #expect(field.value == "")
        #expect(field.edit("4820") == "4820")
        field.setFormat(CodeFormat(length: 4))
        #expect(field.value == "4820", "the same format keeps the code")
    }

    @Test("P1: a PIN pad takes a new length and biometric key passed later")
    func laterPinPad() {
        var pad = PinPadState(length: 6)
        _ = pad.press(.digit(1))
        pad.configure(length: 6, biometricLabel: "Use Touch ID", biometricImage: "touchid")
        #expect(pad.value == "1", "a new biometric key keeps the digits")
        #expect(pad.rows[3][0] == .accessory(.biometric(label: "Use Touch ID", systemImage: "touchid")))
        pad.configure(length: 4, biometricLabel: nil)
        #expect(pad.length == 4 && pad.value.isEmpty && pad.dots.count == 4)
        #expect(pad.rows[3][0] == .accessory(.none))
        pad.configure(length: 99, biometricLabel: nil)
        #expect(pad.length == 8)
    }

    @Test("V6: the toast slides and fades, or under Reduce Motion only fades")
    func toastMotion() {
        #expect(Motion.toast(reduceMotion: false) == .slideAndFade)
        #expect(Motion.toast(reduceMotion: true) == .fade)
    }
}

extension DeviceBehaviourTests {
    @Test("until the view reports focus, nothing assumes a keyboard: no suggestion bar, no highlight")
    func noAssumedFocus() {
        var machine = VerificationMachine()
        machine.began(sampleVerification(at: wall), at: .zero, serverNow: wall)
        machine.offerSuggestion("482019")
        #expect(!machine.isFocused)
        #expect(!machine.showsSuggestion)
        #expect(machine.cells.allSatisfy { !$0.isNext })
        machine.isFocused = true
        #expect(machine.showsSuggestion)
        #expect(machine.cells.first?.isNext == true)
    }
}

extension DeviceBehaviourTests {
    @Test("V4: locked or expired, the keyboard goes so focus can move to Resend; a new code brings it back")
    func keyboardWhenLocked() {
        var machine = started()
        _ = machine.insert("111111", at: .zero)
        #expect(machine.keepsKeyboard, "the keyboard stays while a code is checked")
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 0)), at: .zero, serverNow: wall)
        #expect(machine.phase == .locked)
        #expect(!machine.keepsKeyboard)
        machine.resendAnswered(.success(sampleVerification(at: wall)), at: .seconds(31), serverNow: wall)
        #expect(machine.keepsKeyboard)
        machine.tick(at: .seconds(400))
        #expect(machine.phase == .expired)
        #expect(!machine.keepsKeyboard)
    }
}
