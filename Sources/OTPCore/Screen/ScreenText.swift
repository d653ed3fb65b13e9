import Foundation

/// The screen's sentences (UX V1–V9) in one language, from ``StringCatalog``.
///
/// The views, the terminal and announcements take their text from a value of
/// this type; the server's messages use ``english``, since the HTTP API's
/// `message` stays English and clients translate from its `code`.
///
/// An app overrides any sentence (``overriding(_:with:)``, or a whole table with
/// ``init(_:overrides:)``), or speaks a language of its own catalog
/// (``init(identifier:table:fallback:isRightToLeft:)``).
public struct ScreenText: Sendable, Hashable {
    /// The catalog language: its sentences fill what the app does not override, its plural rules apply.
    public let language: TextLanguage
    /// The app's own sentences, which win over the catalog's.
    public let overrides: [TextKey: CatalogEntry]
    /// The language the screen speaks, as a BCP 47 tag: the catalog's, or the app's own language.
    public let identifier: String
    /// Whether the screen's language is written right to left.
    public let isRightToLeft: Bool

    /// Sentences in a language, with the app's own for any keys it gives.
    public init(_ language: TextLanguage = .english, overrides: [TextKey: CatalogEntry] = [:]) {
        self.language = language
        self.overrides = overrides
        self.identifier = language.rawValue
        self.isRightToLeft = language.isRightToLeft
    }

    /// A language of the app's own catalog, such as French: its table, and the catalog language whose
    /// sentences fill the keys it lacks and whose plural rules apply.
    public init(
        identifier: String, table: [TextKey: CatalogEntry], fallback: TextLanguage = .english,
        isRightToLeft: Bool = false
    ) {
        self.language = fallback
        self.overrides = table
        self.identifier = identifier
        self.isRightToLeft = isRightToLeft
    }

    /// The same sentences with one replaced, such as the title.
    public func overriding(_ key: TextKey, with entry: CatalogEntry) -> ScreenText {
        var table = overrides
        table[key] = entry
        return ScreenText(
            identifier: identifier, table: table, fallback: language, isRightToLeft: isRightToLeft)
    }

    /// The `locale` to start a verification with, so its message speaks the screen's language: the
    /// screen's own when the server's catalog has it, else the catalog language it falls back to.
    public var serverLocale: String {
        TextLanguage(identifier: identifier) != nil ? identifier : language.rawValue
    }

    /// Sentences in the catalog's language for a locale identifier ("de-DE", "ar_EG"), English if none.
    public init(locale identifier: String) {
        self.init(TextLanguage(identifier: identifier) ?? .english)
    }

    /// English sentences.
    public static let english = ScreenText(.english)

    /// The sentence for any key of the catalog.
    public func string(_ key: TextKey, _ arguments: [String: TextArgument] = [:]) -> String {
        if let entry = overrides[key] {
            return StringCatalog.string(entry, pluralRulesOf: language, arguments)
        }
        return StringCatalog.string(key, in: language, arguments)
    }

    /// The screen's title (V1).
    public var title: String { string(.title) }
    /// The line above the masked destination (V1), such as "We sent a 6-digit code to".
    public func sentTo(_ format: CodeFormat) -> String {
        string(format.kind == .digits ? .sentToDigits : .sentToCharacters, ["length": .number(format.length)])
    }
    /// Shown while the first code is being sent.
    public var sendingCode: String { string(.sendingCode) }
    /// Shown and announced while a code is checked (V2).
    public var verifying: String { string(.verifying) }
    /// Shown and announced for a wrong code (V3): "Code doesn't match. 2 attempts left."
    public func incorrect(attemptsLeft: Int) -> String {
        if overrides[.incorrect] != nil { return string(.incorrect, ["count": .number(attemptsLeft)]) }
        return StringCatalog.string(.incorrect, in: language, number: attemptsLeft, named: "count")
    }
    /// What a code approves, above the cells (V16), such as "Approve 12.50 EUR to ACME Ltd".
    public func approveTransaction(_ transaction: TransactionDetails) -> String {
        string(
            .approveTransaction,
            [
                "amount": .text(transaction.amount), "currency": .text(transaction.currency),
                "payee": .text(transaction.payee),
            ])
    }
    /// A destination (a phone number, an address) isolated left to right, so a right-to-left
    /// sentence around it cannot reverse it (V15): U+2066 LEFT-TO-RIGHT ISOLATE … U+2069.
    public static func isolatedLeftToRight(_ text: String) -> String {
        text.isEmpty ? text : "\u{2066}" + text + "\u{2069}"
    }
    /// A code rejected by the app, in a field used on its own (F10).
    public var codeRejected: String { string(.codeRejected) }
    /// Shown when the current code has no attempts left (V4).
    public var locked: String { string(.locked) }
    /// Shown for an expired code (V7).
    public var expired: String { string(.expired) }
    /// Shown and announced for a right code (V8).
    public var verified: String { string(.verified) }
    /// Shown when the server could not be reached (V9).
    public var networkFailure: String { string(.networkFailure) }
    /// The button that checks the same code again after a network failure (V9).
    public var tryAgain: String { string(.tryAgain) }
    /// The default label of the biometric key (P1).
    public var biometricLabel: String { string(.biometricLabel) }
    /// The toast after a resend (V6).
    public var newCodeSent: String { string(.newCodeSent) }
    /// The resend button while its countdown runs (V5), such as "Resend in 0:24".
    public func resendIn(seconds: Int) -> String {
        string(.resendIn, ["time": .text(Self.clock(seconds: seconds))])
    }
    /// The resend button when a resend is possible (V5).
    public var resendCode: String { string(.resendCode) }
    /// Announced once when a countdown ends (V5).
    public var resendAvailable: String { string(.resendAvailable) }
    /// Shown when a rate limit was reached.
    public func rateLimited(retryAfter seconds: Int) -> String {
        string(.rateLimited, ["time": .text(Self.clock(seconds: seconds))])
    }
    /// Shown when a new code could not be delivered.
    public var deliveryFailed: String { string(.deliveryFailed) }
    /// Shown when the verification has used every send.
    public var maxSendsReached: String { string(.maxSendsReached) }
    /// Shown when the verification was approved or canceled elsewhere.
    public var notPending: String { string(.notPending) }
    /// The line above the field when the code comes from an authenticator app.
    public var authenticatorPrompt: String { string(.authenticatorPrompt) }
    /// An authenticator code already accepted for its time step.
    public var codeAlreadyUsed: String { string(.codeAlreadyUsed) }
    /// An authenticator factor locked by wrong codes.
    public var authenticatorLocked: String { string(.authenticatorLocked) }
    /// Shown when no such verification exists.
    public var notFound: String { string(.notFound) }
    /// Shown when a code does not have the format's length.
    public func invalidFormat(_ format: CodeFormat) -> String {
        string(
            format.kind == .digits ? .invalidFormatDigits : .invalidFormatCharacters,
            ["length": .number(format.length)])
    }
    /// Shown when the destination was refused.
    public var invalidDestination: String { string(.invalidDestination) }
    /// Shown when the first code could not be sent.
    public var startFailed: String { string(.startFailed) }
    /// Shown when the first code was refused for this destination (a kind of number, a region or a
    /// channel the service does not send to).
    public var destinationRefused: String { string(.destinationRefused) }
    /// Shown when sends to this destination are paused, with when to try again.
    public func destinationPaused(retryAfter seconds: Int) -> String {
        string(.destinationPaused, ["time": .text(Self.clock(seconds: seconds))])
    }
    /// Shown when the service refused the start before sending.
    public var startRefused: String { string(.startRefused) }
    /// The suggestion bar's source label (S1), such as "From Messages".
    public func suggestionSource(_ source: SuggestionSource) -> String {
        switch source {
        case .messages: string(.suggestionFromMessages)
        case .mail: string(.suggestionFromMail)
        case .authenticator: string(.suggestionFromAuthenticator)
        case .notification: string(.suggestionFromNotification)
        case .link: string(.suggestionFromLink)
        }
    }
    /// The suggestion bar's accessibility label: the code and where it came from (S1).
    public func suggestionLabel(code: String, source: SuggestionSource) -> String {
        string(.suggestionLabel, ["code": .text(code), "source": .text(suggestionSource(source))])
    }
    /// The code field's accessibility label (F10).
    public var fieldLabel: String { string(.fieldLabel) }
    /// The code field's count, such as "3 of 6 digits" (F10); never the characters.
    public func fieldValue(count: Int, format: CodeFormat) -> String {
        string(
            format.kind == .digits ? .fieldValueDigits : .fieldValueCharacters,
            ["count": .number(count), "length": .number(format.length)])
    }
    /// The count followed by the screen's state (F10).
    ///
    /// Such as "6 of 6 digits, Code doesn't match. 2 attempts left."
    public func fieldValue(_ value: String, status: String?) -> String {
        guard let status, !status.isEmpty else { return value }
        return string(.fieldValueWithStatus, ["value": .text(value), "status": .text(status)])
    }
    /// The PIN pad's accessibility label (P1).
    public var pinLabel: String { string(.pinLabel) }
    /// The PIN pad's count, such as "3 of 6 entered" (P1).
    public func pinValue(count: Int, length: Int) -> String {
        string(.pinValue, ["count": .number(count), "length": .number(length)])
    }
    /// The keypad's delete key (K1).
    public var deleteKey: String { string(.keyDelete) }
    /// The keypad's decimal point key (K1).
    public var decimalPointKey: String { string(.keyDecimalPoint) }
    /// The terminal screen's key hints.
    public var terminalHints: String { string(.terminalHints) }
    /// The terminal screen's key hints for a code with letters.
    public var terminalHintsLetters: String { string(.terminalHintsLetters) }
    /// The button that submits the code on a page without JavaScript.
    public var verifyButton: String { string(.verifyButton) }

    /// Formats seconds as m:ss, such as `0:24` or `5:00`.
    public static func clock(seconds: Int) -> String {
        let seconds = max(0, seconds)
        let rest = seconds % 60
        return "\(seconds / 60):\(rest < 10 ? "0" : "")\(rest)"
    }
}

/// Where a suggested code came from, named in the suggestion bar (S1).
public enum SuggestionSource: String, Sendable, Hashable, CaseIterable {
    /// A text message.
    case messages
    /// An email.
    case mail
    /// A push notification.
    case notification
    /// A link that carried the code.
    case link
    /// An authenticator app, which shows the current code.
    case authenticator
}

/// The suggestion bar's rules that hold outside the verification screen too (S1).
public enum SuggestionBar {
    /// The code the bar shows, or `nil` when there is none to offer: the bar is hidden while the
    /// code is missing or blank.
    public static func shownCode(_ code: String?) -> String? {
        guard let code else { return nil }
        let trimmed = code.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
