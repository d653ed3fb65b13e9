import Testing

@testable import OTPCore

@Suite struct CodeEntryTests {
    @Test("F3: typing goes through the same normalisation as paste")
    func typing() {
        var entry = CodeEntry()
        for key in ["4", "x", "٨", " ", "2", "-", "０"] { entry.insert(key) }
        #expect(entry.value == "4820")
        entry.deleteBackward()
        #expect(entry.value == "482")
    }

    @Test("F3: a whole pasted code replaces a partial one, extra keys on a full field are dropped")
    func pasteAndOverflow() {
        var entry = CodeEntry()
        entry.insert("9")
        entry.insert("482 019")
        #expect(entry.value == "482019")
        entry.insert("7")
        #expect(entry.value == "482019")
    }

    @Test(
        "F3, F12: a code pasted over a selection is the code, even when it shares its edge digit with the old text"
    )
    func pasteOverSharedDigit() {
        // Select all of "7", paste "131127": compared as texts, that is "13112" inserted before the 7.
        var ending = CodeEntry()
        ending.apply(text: "7")
        ending.apply(text: "131127")
        #expect(ending.value == "131127")
        var starting = CodeEntry()
        starting.apply(text: "1")
        starting.apply(text: "131127")
        #expect(starting.value == "131127")
        // The same arriving as the edit the comparison finds.
        var edited = CodeEntry()
        edited.apply(text: "7")
        edited.apply(TextEdit.difference(from: "7", to: "131127")!)
        #expect(edited.value == "131127")
        // One key at a time still lands in the highlighted cell (F11), wherever the caret was.
        var typed = CodeEntry()
        typed.apply(text: "12345")
        typed.apply(TextEdit(range: 0..<0, replacement: "6"))
        #expect(typed.value == "123456")
    }

    @Test("F3: the text field delivering autofill twice keeps one copy")
    func doubledAutofill() {
        var entry = CodeEntry()
        entry.apply(text: "482019482019")
        #expect(entry.value == "482019")
        var appended = CodeEntry()
        appended.apply(text: "482019")
        appended.apply(text: "482019482019")
        #expect(appended.value == "482019")
    }

    @Test("F4: a complete code is handed out once, never twice in a row")
    func submitOnce() {
        var entry = CodeEntry()
        entry.insert("48201")
        #expect(entry.takeSubmission() == nil)
        entry.insert("9")
        #expect(entry.takeSubmission() == "482019")
        #expect(entry.takeSubmission() == nil)
        entry.deleteBackward()
        entry.insert("9")
        #expect(entry.takeSubmission() == nil)
        entry.deleteBackward()
        entry.insert("8")
        #expect(entry.takeSubmission() == "482018")
    }

    @Test("F4: an explicit retry may submit the same code again")
    func retryAllowsResubmission() {
        var entry = CodeEntry()
        entry.insert("482019")
        #expect(entry.takeSubmission() == "482019")
        entry.forgetSubmission()
        #expect(entry.takeSubmission() == "482019")
    }

    @Test("F5: after a rejection the digits stay, the next key starts a new code")
    func replaceOnNextKey() {
        var entry = CodeEntry()
        entry.insert("111111")
        _ = entry.takeSubmission()
        entry.markRejected()
        #expect(entry.value == "111111")
        #expect(entry.takeSubmission() == nil)
        entry.insert("5")
        #expect(entry.value == "5")
        #expect(!entry.isRejected)
    }

    @Test("F5: after a rejection delete clears the whole code")
    func deleteClears() {
        var entry = CodeEntry()
        entry.insert("111111")
        entry.markRejected()
        entry.deleteBackward()
        #expect(entry.value.isEmpty)
    }

    @Test("F5: the text field appending a key after a rejection starts a new code")
    func textFieldReplace() {
        var entry = CodeEntry()
        entry.apply(text: "111111")
        entry.markRejected()
        entry.apply(text: "1111115")
        #expect(entry.value == "5")
        entry.markRejected()
        entry.apply(text: "")
        #expect(entry.value.isEmpty)
    }

    @Test("F10: the accessibility value counts characters and never shows them")
    func accessibilityValue() {
        var entry = CodeEntry()
        entry.insert("482")
        #expect(entry.accessibilityValue == "3 of 6 digits")
        #expect(!entry.accessibilityValue.contains("482"))
        var alnum = CodeEntry(format: CodeFormat(length: 8, kind: .alphanumeric))
        alnum.insert("ab")
        #expect(alnum.accessibilityValue == "2 of 8 characters")
    }
}

@Suite struct CodeFieldStateTests {
    @Test("F4 F5 F6: a field on its own submits once, shakes once per rejection, the next key replaces")
    func standaloneField() {
        var field = CodeFieldState()
        #expect(field.edit("48201") == nil)
        #expect(field.edit("482019") == "482019")
        #expect(field.edit("482019") == nil)
        field.setInvalid(true)
        field.setInvalid(true)
        #expect(field.shakeTrigger == 1)
        #expect(field.cells(isFocused: true, isMasked: false).allSatisfy { $0.role == .error })
        #expect(field.edit("4820197") == nil)
        #expect(field.value == "7")
        #expect(!field.isInvalid)
        field.setInvalid(false)
        field.setInvalid(true)
        #expect(field.shakeTrigger == 2)
    }

    @Test("F5 F6: with a rejection count, a second wrong code in a row shakes again and starts over")
    func rejectionsInARow() {
        var field = CodeFieldState()
        #expect(field.edit("111111") == "111111")
        field.reject()
        #expect(field.shakeTrigger == 1)
        #expect(field.cells(isFocused: true, isMasked: false).allSatisfy { $0.role == .error })
        #expect(field.edit("1111112") == nil)
        #expect(field.value == "2")
        #expect(!field.isInvalid)
        #expect(field.edit("222222") == "222222")
        field.reject()
        #expect(field.shakeTrigger == 2)
        #expect(field.isInvalid)
        #expect(field.cells(isFocused: true, isMasked: false).allSatisfy { $0.role == .error })
    }

    @Test("F2: cells split into 3 + 3 and 4 + 4 groups; other lengths stay one group")
    func grouping() {
        #expect(CodeFormat(length: 6).group(Array(1...6)) == [[1, 2, 3], [4, 5, 6]])
        #expect(CodeFormat(length: 8).group(Array(1...8)) == [[1, 2, 3, 4], [5, 6, 7, 8]])
        #expect(CodeFormat(length: 5).group(Array(1...5)) == [[1, 2, 3, 4, 5]])
        #expect(
            CodeFieldState(format: CodeFormat(length: 6)).cellGroups(isFocused: true, isMasked: false).map(
                \.count) == [3, 3])
    }
}
