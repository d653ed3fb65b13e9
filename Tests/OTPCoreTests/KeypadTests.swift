import Foundation
import Testing

@testable import OTPCore

@Suite struct KeypadTests {
    @Test("K1: 1–9 in three rows, then accessory, 0, delete")
    func layout() {
        let rows = KeypadLayout.rows(accessory: .decimal)
        #expect(
            rows.map { $0.map(\.title) } == [
                ["1", "2", "3"], ["4", "5", "6"], ["7", "8", "9"], [".", "0", ""],
            ])
        #expect(rows[3][2] == .delete)
        #expect(KeypadKey.delete.accessibilityLabel == "Delete")
        #expect(KeypadKey.digit(7).accessibilityLabel == "7")
        #expect(!KeypadLayout.rows(accessory: .none)[3][0].isVisible)
    }

    @Test("K1: presses append, clamp to the length, delete is disabled while empty")
    func presses() {
        var input = KeypadInput(maxLength: 4)
        #expect(!input.isDeleteEnabled)
        do { let outcome = input.press(.delete); #expect(outcome == .ignored) }
        do { let outcome = input.press(.digit(1)); #expect(outcome == .changed) }
        #expect(input.isDeleteEnabled)
        _ = input.press(.digit(2))
        _ = input.press(.digit(3))
        do { let outcome = input.press(.digit(4)); #expect(outcome == .completed("1234")) }
        do { let outcome = input.press(.digit(5)); #expect(outcome == .ignored) }
        #expect(input.value == "1234")
        do { let outcome = input.press(.delete); #expect(outcome == .changed) }
        #expect(input.value == "123")
        do { let outcome = input.press(.digit(12)); #expect(outcome == .ignored) }
    }

    @Test("K1: the decimal key adds one point")
    func decimal() {
        var input = KeypadInput(maxLength: 6)
        _ = input.press(.accessory(.decimal))
        #expect(input.value == "0.")
        do { let outcome = input.press(.accessory(.decimal)); #expect(outcome == .ignored) }
        _ = input.press(.digit(5))
        #expect(input.value == "0.5")
    }

    @Test("P1: length is clamped to 4–8 and the dots say how many are entered")
    func pinLength() {
        #expect(PinPadState(length: 2).length == 4)
        #expect(PinPadState(length: 12).length == 8)
        var pad = PinPadState(length: 6)
        _ = pad.press(.digit(1))
        _ = pad.press(.digit(2))
        _ = pad.press(.digit(3))
        #expect(pad.dots == [true, true, true, false, false, false])
        #expect(pad.dotsAccessibilityValue == "3 of 6 entered")
    }

    @Test("P1: the last digit completes with the full value")
    func pinComplete() {
        var pad = PinPadState(length: 4)
        var outcome = KeypadInput.Outcome.ignored
        for digit in [9, 8, 7, 6] { outcome = pad.press(.digit(digit)) }
        #expect(outcome == .completed("9876"))
    }

    @Test("P1: the error state shakes once per transition, a digit starts over")
    func pinError() {
        var pad = PinPadState(length: 4)
        for digit in [1, 2, 3, 4] { _ = pad.press(.digit(digit)) }
        do { let outcome = pad.setError(true); #expect(outcome) }
        // Said, not only coloured: assertively, once, and in the dots' value while it lasts.
        #expect(pad.announcement?.text == "Passcode not accepted. Try again.")
        #expect(pad.announcement?.priority == .assertive)
        #expect(pad.dotsAccessibilityValue == "4 of 4 entered. Passcode not accepted. Try again.")
        let said = pad.announcement
        do { let outcome = pad.setError(true); #expect(!outcome) }
        #expect(pad.announcement == said, "no second announcement without a new verdict")
        #expect(pad.shakeTrigger == 1)
        _ = pad.press(.digit(5))
        #expect(pad.value == "5")
        #expect(!pad.isError)
        do { let outcome = pad.setError(true); #expect(outcome) }
        #expect(pad.shakeTrigger == 2)
    }

    @Test("P1: disabled turns the keypad off")
    func pinDisabled() {
        var pad = PinPadState(length: 4)
        _ = pad.press(.digit(1))
        pad.isDisabled = true
        do { let outcome = pad.press(.digit(2)); #expect(outcome == .ignored) }
        #expect(!pad.isDeleteEnabled)
        #expect(!pad.isEnabled(.digit(3)))
        #expect(pad.value == "1")
    }

    @Test("P1: the biometric key appears only when a biometric action is given")
    func biometric() {
        #expect(PinPadState().rows[3][0] == .accessory(.none))
        var pad = PinPadState(biometricLabel: "Use Face ID")
        #expect(pad.rows[3][0].accessibilityLabel == "Use Face ID")
        do { let outcome = pad.press(pad.rows[3][0]); #expect(outcome == .biometric) }
    }

    @Test("P1: error transitions are detected only from off to on")
    func detector() {
        var detector = ErrorTransitionDetector()
        do { let outcome = detector.update(isError: false); #expect(outcome == false) }
        do { let outcome = detector.update(isError: true); #expect(outcome == true) }
        do { let outcome = detector.update(isError: true); #expect(outcome == false) }
        do { let outcome = detector.update(isError: false); #expect(outcome == false) }
        do { let outcome = detector.update(isError: true); #expect(outcome == true) }
    }
}

@Suite struct ViewSupportTests {
    @Test("F6: the shake is a decaying oscillation of about 0.4 s, and nothing under Reduce Motion")
    func shake() {
        let steps = Motion.shake(reduceMotion: false)
        #expect(abs(Motion.duration(of: steps) - 0.4) <= 0.05)
        let amplitudes = steps.map { abs($0.value) }
        #expect(zip(amplitudes, amplitudes.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(zip(steps, steps.dropFirst()).dropLast().allSatisfy { ($0.value < 0) != ($1.value < 0) })
        #expect(steps.last?.value == 0)
        #expect(Motion.shake(reduceMotion: true).isEmpty)
        #expect(Motion.pop(reduceMotion: true).isEmpty)
        #expect(Motion.pop(reduceMotion: false).last?.value == 1)
    }

    @Test("F8 F9: a field on its own highlights the next cell, masks, and turns red when invalid")
    func standaloneCells() {
        var entry = CodeEntry(format: CodeFormat(length: 4))
        entry.insert("12")
        let cells = entry.cells(isFocused: true, isMasked: true, isInvalid: false)
        #expect(cells.map(\.text) == ["•", "•", "", ""])
        #expect(cells.map(\.isNext) == [false, false, true, false])
        entry.markRejected()
        let rejected = entry.cells(isFocused: true, isMasked: false, isInvalid: true)
        #expect(rejected.allSatisfy { $0.role == .error && !$0.isNext })
    }

    @Test("V2–V8: only new announcements are handed out")
    func newAnnouncements() {
        let wall = Date(timeIntervalSince1970: 0)
        var machine = VerificationMachine()
        machine.began(sampleVerification(at: wall), at: .zero, serverNow: wall)
        _ = machine.insert("111111", at: .zero)
        let seen = machine.announcements.last?.serial ?? 0
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 2)), at: .zero, serverNow: wall)
        #expect(machine.announcements(after: seen).map(\.text) == ["Code doesn't match. 2 attempts left."])
        #expect(machine.announcements(after: seen).first?.priority == .assertive)
    }

    @Test("K1 P1: key enabling, dot colour and an outside value")
    func keyEnablingAndDots() {
        var input = KeypadInput(maxLength: 4)
        #expect(!input.isEnabled(.delete))
        #expect(!input.isEnabled(.accessory(.none)))
        _ = input.press(.digit(1))
        #expect(input.isEnabled(.delete))
        var pad = PinPadState(length: 4)
        #expect(pad.dotRole == .neutral)
        pad.isDisabled = true
        #expect(pad.dotRole == .disabled)
        pad.isDisabled = false
        pad.setError(true)
        #expect(pad.dotRole == .error)
        pad.setValue("12a34567")
        #expect(pad.value == "1234")
    }
}
