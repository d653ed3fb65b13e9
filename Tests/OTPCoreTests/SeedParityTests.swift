import Foundation
import Testing

@testable import OTPCore

/// Behaviours the seed components' parameters control, as OTPCore keeps them.
@Suite struct SeedParityTests {
    @Test("000 onVerify: a field that checks its own codes shows verifying, then verified and locked")
    func verifyingThenVerified() {
        var field = CodeFieldState()
        #expect(field.edit("482019") == "482019")
        field.beginVerifying()
        #expect(field.phase == .verifying)
        #expect(!field.isEditable)
        #expect(
            field.cells(isFocused: true, isMasked: false).allSatisfy { $0.role == .progress && !$0.isNext })
        #expect(field.edit(TextEdit(range: 6..<6, replacement: "1")).outcome == .refused)
        #expect(field.accessibilityValue == "6 of 6 digits, Verifying…")
        field.verified()
        #expect(field.phase == .verified)
        #expect(field.cells(isFocused: true, isMasked: false).allSatisfy { $0.role == .success })
        #expect(field.edit("1") == nil, "locked once verified")
        #expect(field.value == "482019")
        #expect(!field.keepsKeyboard)
        #expect(field.accessibilityValue == "6 of 6 digits, Verified")
    }

    @Test("000 onVerify false, keeping the digits (F5, the default): error colour, shake, next key replaces")
    func verifyingThenRejectedKeep() {
        var field = CodeFieldState()
        _ = field.edit("111111")
        field.beginVerifying()
        let shakes = field.shakeTrigger
        field.reject()
        #expect(field.phase == .editing)
        #expect(field.value == "111111")
        #expect(field.shakeTrigger == shakes + 1)
        #expect(field.keepsKeyboard, "focus back to the field after a rejected code")
        #expect(field.cells(isFocused: true, isMasked: false).allSatisfy { $0.role == .error })
        _ = field.edit("1111114")
        #expect(field.value == "4")
        #expect(!field.isInvalid)
    }

    @Test("000 onVerify false, clearing: the field empties and refocuses; the same code may be sent again")
    func verifyingThenRejectedClear() {
        var field = CodeFieldState(rejectionBehavior: .clearAndRefocus)
        #expect(field.edit("111111") == "111111")
        #expect(!field.keepsKeyboard, "the keyboard goes away with a complete code (003)")
        field.beginVerifying()
        field.reject()
        #expect(field.value == "")
        #expect(field.keepsKeyboard)
        #expect(field.isInvalid)
        #expect(field.cells(isFocused: true, isMasked: false).first?.isNext == true)
        _ = field.edit("1")
        #expect(!field.isInvalid, "typing takes the error away")
        #expect(field.edit("111111") == "111111", "after a clear, retyping the same code submits it")
    }

    @Test("003: the keyboard goes away on complete and comes back when the code is marked wrong")
    func unfocusOnComplete() {
        var field = CodeFieldState()
        _ = field.edit("48201")
        #expect(field.keepsKeyboard)
        _ = field.edit("482019")
        #expect(!field.keepsKeyboard)
        field.setInvalid(true)
        #expect(field.keepsKeyboard)
    }

    @Test("002 defaultValue: non-digits are removed and the rest cut to the length")
    func pinPadDefaultValue() {
        let pad = PinPadState(length: 4, initialValue: "1a2-3 4 5")
        #expect(pad.value == "1234")
        #expect(pad.dots == [true, true, true, true])
        #expect(PinPadState(initialValue: "٣٤").value == "", "only ASCII digits")
    }

    @Test("002 dotsLabel and deleteLabel: the caller's words, else the pad's own in its language")
    func pinPadLabels() {
        var pad = PinPadState(length: 6, deleteLabel: "Erase")
        _ = pad.press(.digit(3))
        #expect(pad.dotsAccessibilityValue(label: nil) == "1 of 6 entered")
        #expect(pad.dotsAccessibilityValue(label: { "\($0)/\($1)" }) == "1/6")
        #expect(pad.accessibilityLabel(for: .delete) == "Erase")
        pad.deleteLabel = nil
        #expect(pad.accessibilityLabel(for: .delete) == "Delete")
        #expect(PinPadState(language: .japanese).accessibilityLabel(for: .delete) != "Delete")
    }

    @Test("000 OtpAutofillInput: the caller's grouping, when it adds up to the length")
    func customGroups() {
        #expect(CodeFormat(length: 6, groups: [2, 2, 2]).groups == [2, 2, 2])
        #expect(CodeFormat(length: 6, groups: [6]).groups == [6], "one group, no separator")
        #expect(CodeFormat(length: 6, groups: [2, 2]).groups == [3, 3], "not adding up: the default")
        #expect(CodeFormat(length: 6, groups: [3, 0, 3]).groups == [3, 3], "an empty group: the default")
        #expect(CodeFormat(length: 8).groups == [4, 4])
        let layout = CodeLayout(
            width: 600, format: CodeFormat(length: 6, groups: [2, 2, 2]), textSize: .large)
        #expect(layout.rows == [[0..<2, 2..<4, 4..<6]])
    }

    @Test("000 OtpAutofillSuggestion: hidden while the code is missing or blank")
    func suggestionHiddenWhileEmpty() {
        #expect(SuggestionBar.shownCode(nil) == nil)
        #expect(SuggestionBar.shownCode("") == nil)
        #expect(SuggestionBar.shownCode("  ") == nil)
        #expect(SuggestionBar.shownCode(" 482019 ") == "482019")
    }
}
