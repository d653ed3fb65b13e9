import Foundation
import OTPCore
import OTPEngine
import OTPTestSupport
import Testing

@testable import OTPHTTP

@Suite struct ResponseJSONTests {
    static let texts = [
        "plain", "+1 •••-•••-0100", "a•••@example.org", "quote \" backslash \\ slash /",
        "tab\tnew\nline\rret",
        "bell \u{07} form \u{0C} back \u{08} nul \u{00} unit \u{1F}", "emoji 🙂 and é", "",
    ]

    static let dates = [
        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_800_000_000.25),
        Date(timeIntervalSince1970: 1_796_027_477.682), Date(timeIntervalSince1970: 951_782_400.999),
        Date(timeIntervalSince1970: 4_102_444_799.5),
    ]

    @Test("verification objects are byte for byte what WireCoding's encoder writes")
    func verifications() throws {
        for (index, text) in Self.texts.enumerated() {
            for date in Self.dates {
                let verification = Verification(
                    id: "vf_\(index)", status: VerificationStatus.allCases[index % 5],
                    channel: index % 2 == 0 ? .sms : .email,
                    to: text, codeLength: 4 + index % 5, attemptsLeft: index, sendsLeft: 10 - index,
                    expiresAt: date,
                    resendAvailableAt: index % 3 == 0 ? nil : date.addingTimeInterval(30.5), createdAt: date)
                let expected = try WireCoding.encoder().encode(verification)
                #expect(
                    String(decoding: ResponseJSON.verification(verification), as: UTF8.self)
                        == String(decoding: expected, as: UTF8.self))
            }
        }
    }

    @Test("error bodies are byte for byte what WireCoding's encoder writes")
    func errors() throws {
        for (index, text) in Self.texts.enumerated() {
            let error = APIError(
                code: OTPErrorCode.all[index % OTPErrorCode.all.count], message: text,
                attemptsLeft: index % 2 == 0 ? nil : index, retryAfter: index % 3 == 0 ? index : nil,
                reason: index % 4 == 1 ? text : nil)
            let expected = try WireCoding.encoder().encode(APIErrorBody(error: error))
            #expect(
                String(decoding: ResponseJSON.error(error), as: UTF8.self)
                    == String(decoding: expected, as: UTF8.self))
        }
    }

    @Test("timestamps match WireCoding.format, whole milliseconds or not")
    func timestamps() {
        var generator = SeededGenerator(seed: 7)
        var dates = Self.dates
        for _ in 0..<500 {
            let milliseconds = Int64.random(in: 0...4_102_444_799_999, using: &generator)
            dates.append(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            dates.append(Date(timeIntervalSince1970: Double.random(in: 0...4_102_444_799, using: &generator)))
        }
        for date in dates {
            #expect(ResponseJSON.timestamp(date) == WireCoding.format(date), "\(date.timeIntervalSince1970)")
        }
    }
}

/// The sentences of the answers a guessing attack gets most.
@Suite struct WrongCodeSentenceTests {
    @Test("a wrong code's sentence is the screen's, for every count of attempts left")
    func incorrectSentences() {
        for left in [-1, 0, 1, 2, 5, 31, 32, 100] {
            #expect(
                APIError(VerifierError.incorrectCode(attemptsLeft: left)).message
                    == (left > 0
                        ? ScreenText.english.incorrect(attemptsLeft: left) : ScreenText.english.locked))
        }
        #expect(
            APIError(VerifierError.incorrectCode(attemptsLeft: 1)).message
                == ScreenText.english.incorrect(attemptsLeft: 1))
        #expect(APIError(VerifierError.incorrectCode(attemptsLeft: 0)).message == ScreenText.english.locked)
    }
}
