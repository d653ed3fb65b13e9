import Foundation
import Testing

@testable import OTPCore

@Suite struct LocalizationTests {
    let wall = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("one number argument without a dictionary reads as the same argument in a dictionary")
    func numberArgument() {
        for language in TextLanguage.allCases {
            for key in TextKey.allCases {
                for name in ["count", "length", "seconds", "other"] {
                    for number in [0, 1, 2, 3, 5, 11, 12, 100, 101, 999_999, -1] {
                        #expect(
                            StringCatalog.string(key, in: language, number: number, named: name)
                                == StringCatalog.string(key, in: language, [name: .number(number)]),
                            "\(language) \(key) \(name)=\(number)")
                    }
                }
            }
        }
        #expect(ScreenText.english.incorrect(attemptsLeft: 1) == "Code doesn't match. 1 attempt left.")
        #expect(
            ScreenText.english.incorrect(attemptsLeft: 123_456) == "Code doesn't match. 123456 attempts left."
        )
    }

    @Test("placeholders fill in one pass: a missing argument stays as written, braces in an argument stay")
    func filling() {
        #expect(
            StringCatalog.string(.suggestionLabel, in: .english, ["code": "123 456", "source": "Messages"])
                == "Fill in code 123 456, Messages")
        #expect(
            StringCatalog.string(.suggestionLabel, in: .english, ["code": "{source}", "source": "é{code}"])
                == "Fill in code {source}, é{code}")
        #expect(
            StringCatalog.string(.suggestionLabel, in: .english, ["source": "Mail", "unused": 7])
                == "Fill in code {code}, Mail")
        #expect(StringCatalog.string(.suggestionLabel, in: .english) == "Fill in code {code}, {source}")
        #expect(
            StringCatalog.string(.suggestionLabel, in: .arabic, ["code": "٤٢", "source": "SMS"])
                == "إدخال الرمز ٤٢، SMS")
    }

    @Test("every key is in every language", arguments: TextLanguage.allCases)
    func everyKey(language: TextLanguage) {
        let table = StringCatalog.table(language)
        for key in TextKey.allCases {
            #expect(table[key] != nil, "\(language.rawValue) lacks \(key.rawValue)")
        }
        #expect(table.count == TextKey.allCases.count)
    }

    @Test(
        "placeholders are intact: every form uses only the English entry's, and the entry uses them all",
        arguments: TextLanguage.allCases)
    func placeholders(language: TextLanguage) throws {
        for key in TextKey.allCases {
            let english = try #require(StringCatalog.english[key])
            let entry = try #require(StringCatalog.table(language)[key])
            let expected = Set(english.texts.flatMap(StringCatalog.placeholders(in:)))
            var used: Set<String> = []
            for text in entry.texts {
                let names = Set(StringCatalog.placeholders(in: text))
                #expect(names.isSubset(of: expected), "\(language.rawValue) \(key.rawValue): \(text)")
                #expect(!text.isEmpty)
                used.formUnion(names)
            }
            #expect(used == expected, "\(language.rawValue) \(key.rawValue) drops a placeholder")
            if case .plural(let selector, let forms, _) = entry {
                #expect(forms[.other] != nil, "\(language.rawValue) \(key.rawValue) has no other form")
                #expect(expected.contains(selector))
            }
        }
    }

    @Test(
        "the plural forms a language has are the ones it needs, no more, no fewer",
        arguments: TextLanguage.allCases)
    func pluralForms(language: TextLanguage) {
        let needed = Set((0...200).map(language.pluralCategory))
        for (key, entry) in StringCatalog.table(language) {
            guard case .plural(_, let forms, _) = entry else { continue }
            #expect(Set(forms.keys) == needed, "\(language.rawValue) \(key.rawValue)")
        }
    }

    @Test("CLDR plural categories for 0, 1, 2, 3, 11 and 100")
    func categories() {
        let numbers = [0, 1, 2, 3, 11, 100]
        #expect(
            numbers.map(TextLanguage.english.pluralCategory) == [
                .other, .one, .other, .other, .other, .other,
            ])
        #expect(
            numbers.map(TextLanguage.german.pluralCategory) == [.other, .one, .other, .other, .other, .other])
        #expect(numbers.map(TextLanguage.japanese.pluralCategory) == Array(repeating: .other, count: 6))
        #expect(numbers.map(TextLanguage.arabic.pluralCategory) == [.zero, .one, .two, .few, .many, .other])
        #expect(TextLanguage.arabic.pluralCategory(103) == .few)
        #expect(TextLanguage.arabic.pluralCategory(111) == .many)
        #expect(TextLanguage.arabic.pluralCategory(200) == .other)
    }

    @Test("attempts left, in every language, for 0, 1, 2, 3, 11 and 100")
    func attemptsLeft() {
        let numbers = [0, 1, 2, 3, 11, 100]
        func sentences(_ language: TextLanguage) -> [String] {
            numbers.map { ScreenText(language).incorrect(attemptsLeft: $0) }
        }
        #expect(
            sentences(.english) == [
                "Code doesn't match. 0 attempts left.", "Code doesn't match. 1 attempt left.",
                "Code doesn't match. 2 attempts left.", "Code doesn't match. 3 attempts left.",
                "Code doesn't match. 11 attempts left.", "Code doesn't match. 100 attempts left.",
            ])
        let german = sentences(.german)
        #expect(german[1] != german[2].replacingOccurrences(of: "2", with: "1"), "German singular differs")
        let arabic = sentences(.arabic)
        // Arabic: one, two and few each read differently; zero, many and other share the singular noun.
        #expect(Set(arabic.map { $0.filter { !$0.isNumber } }).count == 4)
        let japanese = sentences(.japanese)
        #expect(japanese[2] == japanese[3].replacingOccurrences(of: "3", with: "2"), "Japanese has one form")
        for (language, texts) in [(TextLanguage.german, german), (.arabic, arabic), (.japanese, japanese)] {
            for (number, text) in zip(numbers, texts)
            where !(language == .arabic && (number == 1 || number == 2)) {
                #expect(text.contains(String(number)), "\(language.rawValue): \(text)")
            }
            #expect(Set(texts).count == texts.count, "\(language.rawValue): each number reads differently")
        }
    }

    @Test("English articles: a 6-digit code, an 8-digit code")
    func articles() {
        #expect(ScreenText.english.sentTo(CodeFormat(length: 6)) == "We sent a 6-digit code to")
        #expect(ScreenText.english.sentTo(CodeFormat(length: 8)) == "We sent an 8-digit code to")
        #expect(
            ScreenText.english.sentTo(CodeFormat(length: 8, kind: .alphanumeric))
                == "We sent an 8-character code to")
    }

    @Test("locale identifiers choose the catalog's language; others fall back to English")
    func identifiers() {
        #expect(TextLanguage(identifier: "de-CH") == .german)
        #expect(TextLanguage(identifier: "ar_EG") == .arabic)
        #expect(TextLanguage(identifier: "ja_JP.UTF-8") == .japanese)
        #expect(TextLanguage(identifier: "EN-gb") == .english)
        #expect(TextLanguage(identifier: "fr-FR") == nil)
        #expect(TextLanguage(identifier: "C.UTF-8") == nil)
        #expect(TextLanguage(identifier: "") == nil)
        #expect(TextLanguage.preferred(from: ["fr-FR", "ja-JP", "de"]) == .japanese)
        #expect(TextLanguage.preferred(from: ["fr-FR"]) == .english)
        #expect(ScreenText(locale: "de_DE").language == .german)
        #expect(TextLanguage.arabic.isRightToLeft)
        #expect(!TextLanguage.german.isRightToLeft)
    }

    @Test("the screen's sentences come from the model in its language", arguments: TextLanguage.allCases)
    func screenInLanguage(language: TextLanguage) {
        var machine = VerificationMachine(language: language)
        machine.began(sampleVerification(attemptsLeft: 3, at: wall), at: .zero, serverNow: wall)
        let text = ScreenText(language)
        #expect(machine.sentToText == text.sentTo(.default))
        #expect(machine.resendLabel == text.resendIn(seconds: 30))
        _ = machine.insert("111111", at: .zero)
        #expect(machine.statusMessage?.text == text.verifying)
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 2)), at: .zero, serverNow: wall)
        #expect(machine.statusMessage?.text == text.incorrect(attemptsLeft: 2))
        #expect(machine.announcements.last?.text == text.incorrect(attemptsLeft: 2))
        #expect(machine.accessibilityValue.contains(text.incorrect(attemptsLeft: 2)))
        #expect(machine.accessibilityValue.contains(text.fieldValue(count: 6, format: .default)))
        if language != .english {
            #expect(machine.statusMessage?.text != ScreenText.english.incorrect(attemptsLeft: 2))
            #expect(text.title != ScreenText.english.title)
            #expect(text.terminalHints.contains("Backspace") && text.terminalHints.contains("Tab"))
        }
    }

    @Test("the field's accessibility value carries the state, and never the characters")
    func fieldValueWithState() {
        var machine = VerificationMachine()
        machine.began(sampleVerification(at: wall), at: .zero, serverNow: wall)
        _ = machine.insert("482", at: .zero)
        #expect(machine.accessibilityValue == "3 of 6 digits")
        _ = machine.insert("019", at: .zero)
        #expect(machine.accessibilityValue == "6 of 6 digits, Verifying…")
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 2)), at: .zero, serverNow: wall)
        #expect(machine.accessibilityValue == "6 of 6 digits, Code doesn't match. 2 attempts left.")
        #expect(!machine.accessibilityValue.contains("482019"))
        var field = CodeFieldState()
        _ = field.edit("482019")
        field.reject()
        #expect(field.accessibilityValue == "6 of 6 digits, Code doesn't match.")
        #expect(CodeFieldState(language: .german).accessibilityValue != CodeFieldState().accessibilityValue)
    }

    @Test("the PIN pad speaks its count politely after each key, and its keys in its language")
    func pinPad() throws {
        var pad = PinPadState(length: 4, language: .english)
        #expect(pad.announcement == nil)
        _ = pad.press(.digit(1))
        _ = pad.press(.digit(2))
        let announcement = try #require(pad.announcement)
        #expect(announcement.text == "2 of 4 entered")
        #expect(announcement.priority == .polite)
        _ = pad.press(.delete)
        #expect(pad.announcement?.text == "1 of 4 entered")
        #expect(pad.announcement!.serial > announcement.serial)
        let serial = pad.announcement!.serial
        _ = pad.press(.accessory(.none))
        #expect(pad.announcement?.serial == serial, "an ignored key says nothing")
        let german = PinPadState(length: 4, language: .german)
        #expect(german.accessibilityLabel(for: .delete) != "Delete")
        #expect(german.dotsAccessibilityValue != PinPadState(length: 4).dotsAccessibilityValue)
        #expect(KeypadKey.delete.accessibilityLabel == "Delete")
    }
}
