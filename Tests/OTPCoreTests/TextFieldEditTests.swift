import Foundation
import OTPTestSupport
import Testing

@testable import OTPCore

/// A small model of a UIKit text field: text, selection, marked text and undo, changed the way
/// UIKit changes a `UITextField` and asking its delegate before every edit it asks about.
///
/// The owner plays the SwiftUI field's coordinator: it answers through ``CodeTextFieldRules``
/// and, after every edit, puts the code in the field with the caret at the end.
struct SimulatedTextField {
    /// The code side: applies an edit, returns the outcome; and the code's text.
    struct Owner {
        var apply: (TextEdit) -> TextEditOutcome
        var code: () -> String
    }

    private(set) var text = ""
    private(set) var selection = 0..<0
    private(set) var marked: Range<Int>?
    private var undoStack: [String] = []
    /// How many edits the field asked about or made by itself.
    private(set) var edits = 0
    /// Whether the keyboard composes (Japanese, Chinese, Korean): its first key arrives unmarked.
    var keyboardComposes = false
    let owner: Owner

    init(owner: Owner) {
        self.owner = owner
        sync()
    }

    var length: Int { text.utf16.count }
    var isComposing: Bool { marked != nil }

    /// A tap or an arrow key puts the caret at an offset.
    mutating func moveCaret(to offset: Int) {
        let offset = min(max(0, offset), length)
        selection = offset..<offset
    }

    /// A long-press or shift-arrow selects a range.
    mutating func select(_ range: Range<Int>) {
        let lower = min(max(0, range.lowerBound), length)
        selection = lower..<min(max(lower, range.upperBound), length)
    }

    /// A key or a paste at the caret, replacing the selection.
    mutating func insert(_ string: String) {
        ask(TextEdit(range: marked ?? selection, replacement: string))
    }

    /// System one-time-code autofill: the whole text becomes the code.
    mutating func autofill(_ code: String) {
        ask(TextEdit(range: 0..<length, replacement: code))
    }

    /// The delete key: the selection, or the character before the caret; nothing at the start.
    mutating func deleteBackward() {
        if !selection.isEmpty {
            ask(TextEdit(range: selection, replacement: ""))
        } else if selection.lowerBound > 0 {
            ask(TextEdit(range: (selection.lowerBound - 1)..<selection.lowerBound, replacement: ""))
        }
    }

    /// Forward delete (an iPad keyboard's fn-delete): the character after the caret.
    mutating func deleteForward() {
        if !selection.isEmpty {
            ask(TextEdit(range: selection, replacement: ""))
        } else if selection.upperBound < length {
            ask(TextEdit(range: selection.lowerBound..<(selection.lowerBound + 1), replacement: ""))
        }
    }

    /// Undo: UIKit puts the previous text back without asking the delegate, then reports the change.
    mutating func undo() {
        guard let previous = undoStack.popLast() else { return }
        text = previous
        moveCaret(to: length)
        changedByItself()
    }

    /// A Japanese or Chinese keyboard composing: the marked text replaces the marked range.
    mutating func setMarked(_ string: String) {
        let range = marked ?? selection
        let edit = TextEdit(range: range, replacement: string, isComposing: true)
        guard CodeTextFieldRules.shouldChange(edit, isComposing: true, apply: owner.apply) else { return }
        text = edit.applied(to: text)
        let end = range.lowerBound + string.utf16.count
        marked = range.lowerBound..<end
        selection = end..<end
    }

    /// A composing keyboard turns the last `count` characters it put in into marked text.
    mutating func markLast(_ count: Int) {
        marked = max(0, length - count)..<length
    }

    /// The composition is committed: the marked text stays as ordinary text, and the field reports it.
    mutating func commitMarked() {
        guard marked != nil else { return }
        marked = nil
        changedByItself()
    }

    private mutating func ask(_ edit: TextEdit) {
        edits += 1
        let before = text
        if CodeTextFieldRules.shouldChange(
            edit, isComposing: isComposing, keyboardComposes: keyboardComposes, apply: owner.apply)
        {
            text = edit.applied(to: text)
            let end = edit.range.lowerBound + edit.replacement.utf16.count
            selection = end..<end
        } else {
            sync()
        }
        if text != before { undoStack.append(before) }
    }

    private mutating func changedByItself() {
        edits += 1
        if let edit = CodeTextFieldRules.editAfterChange(
            fieldText: text, isComposing: isComposing, code: owner.code())
        {
            _ = owner.apply(edit)
        }
        sync()
    }

    /// What the coordinator does after every edit: the field shows the code, caret at the end.
    private mutating func sync() {
        guard !isComposing else { return }
        text = owner.code()
        moveCaret(to: length)
    }
}

/// A field on its own (``CodeFieldState``) behind a simulated text field, recording submissions.
final class FieldHarness {
    var state: CodeFieldState
    var submissions: [String] = []
    /// Made on first use, once `self` can be captured.
    lazy var field = SimulatedTextField(
        owner: .init(
            apply: { [unowned self] edit in
                let (outcome, submission) = state.edit(edit)
                if let submission { submissions.append(submission) }
                return outcome
            },
            code: { [unowned self] in state.value }))

    init(format: CodeFormat = .default) {
        state = CodeFieldState(format: format)
    }

    /// Types a code in at the end, key by key.
    func type(_ keys: String) {
        for key in keys { field.insert(String(key)) }
    }
}

@Suite struct TextFieldEditTests {
    let wall = Date(timeIntervalSince1970: 1_795_000_000)

    /// One row of the table: a start, the user's edits, and what the code and submissions must be.
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let edits: @Sendable (FieldHarness) -> Void
        let value: String
        let submissions: [String]
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "F5: after a rejection, a key with the caret before the code starts a new code of that key",
            edits: { h in
                h.type("482019")
                h.state.reject()
                h.field.moveCaret(to: 0)
                h.field.insert("7")
            }, value: "7", submissions: ["482019"]),
        Row(
            name: "F5: after a rejection, a key with the caret mid-code starts a new code",
            edits: { h in
                h.type("482019")
                h.state.reject()
                h.field.moveCaret(to: 3)
                h.field.insert("5")
            }, value: "5", submissions: ["482019"]),
        Row(
            name: "F5: after a rejection, a paste at the caret is the new code's start",
            edits: { h in
                h.type("482019")
                h.state.reject()
                h.field.moveCaret(to: 2)
                h.field.insert("123")
            }, value: "123", submissions: ["482019"]),
        Row(
            name: "F5: after a rejection, delete clears the code",
            edits: { h in
                h.type("482019")
                h.state.reject()
                h.field.deleteBackward()
            }, value: "", submissions: ["482019"]),
        Row(
            name: "F11: a key with the caret moved before a partial code lands in the highlighted cell",
            edits: { h in
                h.type("482")
                h.field.moveCaret(to: 0)
                h.field.insert("7")
            }, value: "4827", submissions: []),
        Row(
            name: "a key typed into a full code is refused, not cut into a new code",
            edits: { h in
                h.type("482019")
                h.field.moveCaret(to: 0)
                h.field.insert("7")
            }, value: "482019", submissions: ["482019"]),
        Row(
            name: "a paste that would overflow the code is refused",
            edits: { h in
                h.type("48201")
                h.field.moveCaret(to: 0)
                h.field.insert("77")
            }, value: "48201", submissions: []),
        Row(
            name: "a whole code pasted with the caret mid-code replaces the code and submits once",
            edits: { h in
                h.type("12")
                h.field.moveCaret(to: 1)
                h.field.insert("Your code is 482019")
            }, value: "482019", submissions: ["482019"]),
        Row(
            name: "autofill replaces everything and submits once",
            edits: { h in
                h.type("55")
                h.field.autofill("482019")
                h.field.autofill("482019")
            }, value: "482019", submissions: ["482019"]),
        Row(
            name: "F11: a key over a dragged text selection lands in the highlighted cell",
            edits: { h in
                h.type("4820")
                h.field.select(1..<3)
                h.field.insert("5")
            }, value: "48205", submissions: []),
        Row(
            name: "F11: delete with the caret moved mid-code removes the last character",
            edits: { h in
                h.type("48201")
                h.field.moveCaret(to: 2)
                h.field.deleteBackward()
            }, value: "4820", submissions: []),
        Row(
            name: "F11: forward delete at the start removes the last character",
            edits: { h in
                h.type("482")
                h.field.moveCaret(to: 0)
                h.field.deleteForward()
            }, value: "48", submissions: []),
        Row(
            name: "F11: delete over part of the text removes the last character",
            edits: { h in
                h.type("48201")
                h.field.select(0..<4)
                h.field.deleteBackward()
            }, value: "4820", submissions: []),
        Row(
            name: "delete over the whole text clears the code",
            edits: { h in
                h.type("48201")
                h.field.select(0..<5)
                h.field.deleteBackward()
            }, value: "", submissions: []),
        Row(
            name: "F11: a tapped cell takes the next key, and the corrected code submits once",
            edits: { h in
                h.type("482019")
                h.state.reject()
                h.state.select(2)
                h.field.insert("5")
            }, value: "485019", submissions: ["482019", "485019"]),
        Row(
            name: "F11: Backspace on a tapped cell clears only it; the next key fills it",
            edits: { h in
                h.type("48201")
                h.state.select(1)
                h.field.deleteBackward()
                #expect(h.state.entry.characters.map { $0.map(String.init) ?? "_" }.joined() == "4_201_")
                h.field.insert("7")
            }, value: "47201", submissions: []),
        Row(
            name: "F12: a pasted message gives its one code, not its digits run together",
            edits: { h in
                h.field.insert("Acme: valid for 5 minutes. Your code is 482019")
            }, value: "482019", submissions: ["482019"]),
        Row(
            name: "F12: a pasted message with two codes changes nothing and submits nothing",
            edits: { h in
                h.type("48")
                h.field.insert("Codes 482019 or 551234, valid 5 minutes")
            }, value: "48", submissions: []),
        Row(
            name: "undo puts the previous code back",
            edits: { h in
                h.type("48")
                h.type("2")
                h.field.undo()
            }, value: "48", submissions: []),
        Row(
            name: "a letter in a digit code is refused",
            edits: { h in
                h.type("48")
                h.field.insert("a")
            }, value: "48", submissions: []),
        Row(
            name: "marked text changes nothing until committed; full-width digits become ASCII",
            edits: { h in
                h.type("4")
                h.field.setMarked("８")
                #expect(h.state.value == "4")
                h.field.setMarked("８２")
                #expect(h.state.value == "4")
                h.field.commitMarked()
            }, value: "482", submissions: []),
        Row(
            name: "the last key submits once; deleting and retyping the same code does not submit it again",
            edits: { h in
                h.type("482019")
                h.field.deleteBackward()
                h.type("9")
            }, value: "482019", submissions: ["482019"]),
    ]

    @Test("edit sequences a UIKit text field produces map to the right code change", arguments: rows)
    func editTable(row: Row) {
        let harness = FieldHarness()
        row.edits(harness)
        #expect(harness.state.value == row.value)
        #expect(harness.submissions == row.submissions)
        #expect(harness.field.text == harness.state.value, "the field shows the code")
        #expect(harness.field.selection == harness.field.length..<harness.field.length, "caret at the end")
    }

    @Test("the bug: after a rejection, the first cell tapped and 7 pressed does not submit 748201")
    func rejectionThenKeyAtStart() {
        var machine = VerificationMachine()
        machine.began(sampleVerification(at: wall), at: .zero, serverNow: wall)
        var checks: [String] = []
        var field = SimulatedTextField(
            owner: .init(
                apply: { edit in
                    let (outcome, effects) = machine.edit(edit, at: .zero)
                    for case .check(_, let code) in effects { checks.append(code) }
                    return outcome
                }, code: { machine.entry.value }))
        for key in "482019" { field.insert(String(key)) }
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 2)), at: .zero, serverNow: wall)
        field.moveCaret(to: 0)
        field.insert("7")
        #expect(checks == ["482019"])
        #expect(machine.entry.value == "7")
        #expect(field.text == "7")
        #expect(machine.phase == .filling)
    }

    @Test("F7: while verifying, keys are refused and the field is re-synced, so no stray key arrives later")
    func readOnlyRefusesAndResyncs() {
        var machine = VerificationMachine()
        machine.began(sampleVerification(at: wall), at: .zero, serverNow: wall)
        var field = SimulatedTextField(
            owner: .init(apply: { machine.edit($0, at: .zero).outcome }, code: { machine.entry.value }))
        for key in "482019" { field.insert(String(key)) }
        #expect(machine.phase == .verifying)
        field.insert("5")
        field.moveCaret(to: 0)
        field.insert("1")
        field.deleteBackward()
        #expect(field.text == "482019")
        #expect(machine.entry.value == "482019")
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 2)), at: .zero, serverNow: wall)
        field.insert("3")
        #expect(machine.entry.value == "3", "only the key pressed after the answer counts")
    }

    @Test(
        "item 12: a Japanese keyboard's first digit, asked about before it is marked, is not committed early")
    func composingKeyboardFirstKey() {
        let harness = FieldHarness()
        harness.type("4")
        harness.field.keyboardComposes = true
        harness.field.insert("８")  // the first key: UIKit asks before the field holds marked text
        harness.field.markLast(1)  // then the keyboard marks it and goes on composing
        #expect(harness.state.value == "4", "not taken yet")
        #expect(harness.field.text == "4８", "the keyboard keeps composing it")
        harness.field.setMarked("８２")
        harness.field.commitMarked()
        #expect(harness.state.value == "482")
        #expect(harness.field.text == "482")
        #expect(CodeTextFieldRules.keyboardComposes(primaryLanguage: "ja-JP"))
        #expect(CodeTextFieldRules.keyboardComposes(primaryLanguage: "zh-Hans"))
        #expect(!CodeTextFieldRules.keyboardComposes(primaryLanguage: "en-US"))
        #expect(!CodeTextFieldRules.keyboardComposes(primaryLanguage: nil))
    }

    @Test("the difference between two texts is the smallest edit, and applying it gives the new text")
    func difference() throws {
        #expect(TextEdit.difference(from: "482", to: "482") == nil)
        #expect(
            TextEdit.difference(from: "482019", to: "7482019") == TextEdit(range: 0..<0, replacement: "7"))
        #expect(TextEdit.difference(from: "4820", to: "450") == TextEdit(range: 1..<3, replacement: "5"))
        #expect(TextEdit.difference(from: "48201", to: "4201") == TextEdit(range: 1..<2, replacement: ""))
        var generator = SeededGenerator(seed: 11)
        let alphabet = Array("0123456789a８")
        for _ in 0..<2_000 {
            let old = String(
                (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                    alphabet.randomElement(using: &generator)!
                })
            let new = String(
                (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                    alphabet.randomElement(using: &generator)!
                })
            let edit = TextEdit.difference(from: old, to: new)
            #expect((edit?.applied(to: old) ?? old) == new, "\(old) → \(new)")
        }
    }

    @Test("a binding's whole new text is read as the edit it was, not as a paste")
    func bindingText() {
        var entry = CodeEntry()
        entry.apply(text: "482019")
        entry.markRejected()
        entry.apply(text: "7482019")
        #expect(entry.value == "7")
        entry.apply(text: "712")
        #expect(entry.value == "712")
        entry.apply(text: "9712")
        #expect(entry.value == "7129", "F11: the key lands in the highlighted cell, not where the caret was")
    }

    @Test(
        "F3 F4 F5 property: a submission holds only characters the user entered, fills the format, never repeats",
        arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func property(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let format =
            seed.isMultiple(of: 2) ? CodeFormat(length: 6) : CodeFormat(length: 4, kind: .alphanumeric)
        let harness = FieldHarness(format: format)
        let keys = format.kind == .digits ? Array("0123456789a-８ ") : Array("0123456789abXZ-")
        // Every format character the user put in, in order; a submission must be drawn from them.
        var entered: [Character] = []
        func record(_ text: String) {
            entered += CodeNormalizer.normalizeUncut(text, for: format)
        }
        for _ in 0..<4_000 {
            let editsBefore = harness.field.edits
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<40:
                let key = String(keys.randomElement(using: &generator)!)
                record(key)
                harness.field.insert(key)
            case 40..<50:
                harness.field.moveCaret(to: Int.random(in: 0...harness.field.length, using: &generator))
            case 50..<55:
                let a = Int.random(in: 0...harness.field.length, using: &generator)
                let b = Int.random(in: 0...harness.field.length, using: &generator)
                harness.field.select(min(a, b)..<max(a, b))
            case 55..<65:
                harness.field.deleteBackward()
            case 65..<68:
                harness.field.deleteForward()
            case 68..<73:
                let paste = String(
                    (0..<Int.random(in: 1...9, using: &generator)).map { _ in
                        keys.randomElement(using: &generator)!
                    })
                record(paste)
                harness.field.insert(paste)
            case 73..<76:
                let code = String(
                    (0..<format.length).map { _ in "0123456789".randomElement(using: &generator)! })
                record(code)
                harness.field.autofill(code)
            case 76..<80:
                harness.field.undo()
            case 80..<84:
                let composed = String(keys.randomElement(using: &generator)!)
                harness.field.setMarked(composed)
                if Bool.random(using: &generator) {
                    record(composed)
                    harness.field.commitMarked()
                }
            case 84..<95:
                harness.state.reject()
            default:
                harness.field.commitMarked()
            }
            // After every edit, the field shows the code with the caret at the end.
            if !harness.field.isComposing, harness.field.edits > editsBefore {
                #expect(harness.field.text == harness.state.value)
                #expect(harness.field.selection == harness.field.length..<harness.field.length)
            }
        }
        #expect(!harness.submissions.isEmpty, "the run submits codes")
        var counts: [Character: Int] = [:]
        for character in entered { counts[character, default: 0] += 1 }
        for (index, submission) in harness.submissions.enumerated() {
            #expect(submission.count == format.length)
            #expect(submission.allSatisfy(format.allows))
            for (character, count) in Dictionary(grouping: submission, by: { $0 }).mapValues(\.count) {
                #expect(
                    count <= counts[character, default: 0], "\(submission) holds \(character) never entered")
            }
            if index > 0 {
                #expect(
                    submission != harness.submissions[index - 1], "submitted twice in a row: \(submission)")
            }
        }
    }
}
