import OTPCore

/// The wording of the messages that carry codes, per language: built in for English, German,
/// Arabic and Japanese, and overridable per channel and language.
///
/// Placeholders: `{code}`, `{app}` (the app name, cut if an SMS would not fit one segment) and
/// `{minutes}` (the code's lifetime in whole minutes, at least 1). The server appends the Android
/// app hash and the origin-bound line (`@example.com #482019`) to SMS itself; a template cannot
/// remove or move them.
public struct MessageTemplates: Sendable, Hashable {
    /// One language's texts.
    public struct Texts: Sendable, Hashable {
        /// The SMS sentence.
        public var sms: String
        /// The email's subject; it must not carry the code.
        public var emailSubject: String
        /// The email's plain-text sentence.
        public var email: String
        /// The sentence before the code's, in SMS and email alike, when the code approves a
        /// transaction: `{amount}`, `{currency}` and `{payee}`; `nil` for the built-in one.
        public var transaction: String?

        /// Creates the texts.
        public init(sms: String, emailSubject: String, email: String, transaction: String? = nil) {
            self.sms = sms
            self.emailSubject = emailSubject
            self.email = email
            self.transaction = transaction
        }
    }

    /// The placeholders a template may use.
    public static let placeholders: Set<String> = ["code", "app", "minutes"]
    /// The placeholders of a transaction sentence.
    public static let transactionPlaceholders: Set<String> = ["amount", "currency", "payee"]

    /// The built-in transaction sentences.
    public static let builtInTransaction: [TextLanguage: String] = [
        .english: "Approve {amount} {currency} to {payee}.",
        .german: "Zahlung von {amount} {currency} an {payee} freigeben.",
        .arabic: "للموافقة على دفع {amount} {currency} إلى {payee}.",
        .japanese: "{payee}への{amount} {currency}の支払いを承認します。",
    ]

    /// The transaction sentence of a language, filled: its override, else the built-in one.
    public func transactionSentence(_ transaction: TransactionDetails, language: TextLanguage) -> String {
        let template =
            texts(language).transaction ?? Self.builtInTransaction[language]
            ?? "Approve {amount} {currency} to {payee}."
        return template.replacing("{amount}", with: transaction.amount)
            .replacing("{currency}", with: transaction.currency).replacing("{payee}", with: transaction.payee)
    }

    /// Overrides by language; a language without one uses the built-in texts.
    public var overrides: [TextLanguage: Texts]

    /// Creates templates with overrides.
    public init(overrides: [TextLanguage: Texts] = [:]) {
        self.overrides = overrides
    }

    /// The built-in English texts, the fallback of every language.
    public static let english = Texts(
        sms: "Your {app} code is {code}. It expires in {minutes} minutes.",
        emailSubject: "Your {app} verification code",
        email: "Your {app} code is {code}. It expires in {minutes} minutes.")

    /// The built-in texts.
    public static let builtIn: [TextLanguage: Texts] = [
        .english: english,
        .german: Texts(
            sms: "Ihr {app}-Code lautet {code}. Er läuft in {minutes} Minuten ab.",
            emailSubject: "Ihr {app}-Bestätigungscode",
            email: "Ihr {app}-Code lautet {code}. Er läuft in {minutes} Minuten ab."),
        .arabic: Texts(
            sms: "رمز {app} هو {code}. ينتهي بعد {minutes} دقائق.",
            emailSubject: "رمز التحقق من {app}",
            email: "رمز {app} الخاص بك هو {code}. تنتهي صلاحيته بعد {minutes} دقائق."),
        .japanese: Texts(
            sms: "{app}の確認コードは{code}です。有効期限は{minutes}分です。",
            emailSubject: "{app}の確認コード", email: "{app}の確認コードは{code}です。有効期限は{minutes}分です。"),
    ]

    /// The texts of a language: its override, else the built-in ones.
    public func texts(_ language: TextLanguage) -> Texts {
        overrides[language] ?? Self.builtIn[language] ?? Self.english
    }

    /// What is wrong with the overrides, one sentence each; empty when they can be used.
    ///
    /// Unknown placeholders, a body without `{code}`, a subject with it.
    public var problems: [String] {
        var problems: [String] = []
        for (language, texts) in overrides.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            for (name, text) in [
                ("sms", texts.sms), ("email-subject", texts.emailSubject), ("email", texts.email),
            ] {
                let unknown = Set(StringCatalog.placeholders(in: text)).subtracting(Self.placeholders)
                if !unknown.isEmpty {
                    problems.append(
                        "the \(name).\(language.rawValue) template has unknown placeholders: "
                            + unknown.sorted().map { "{\($0)}" }.joined(separator: ", ")
                            + " (known: {code}, {app}, {minutes})")
                }
                let usesCode = text.contains("{code}")
                if Self.transactionPlaceholders.contains(where: { text.contains("{\($0)}") }) {
                    problems.append(
                        "the \(name).\(language.rawValue) template cannot use {amount}, {currency} or {payee}; "
                            + "they belong in the transaction template")
                }
                if name == "email-subject", usesCode {
                    problems.append("the email-subject.\(language.rawValue) template must not carry {code}")
                } else if name != "email-subject", !usesCode {
                    problems.append("the \(name).\(language.rawValue) template needs {code}")
                }
            }
        }
        for (language, texts) in overrides.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard let transaction = texts.transaction else { continue }
            let unknown = Set(StringCatalog.placeholders(in: transaction)).subtracting(
                Self.transactionPlaceholders)
            if !unknown.isEmpty {
                problems.append(
                    "the transaction.\(language.rawValue) template has unknown placeholders: "
                        + unknown.sorted().map { "{\($0)}" }.joined(separator: ", ")
                        + " (known: {amount}, {currency}, {payee})")
            }
            for name in Self.transactionPlaceholders.sorted() where !transaction.contains("{\(name)}") {
                problems.append("the transaction.\(language.rawValue) template needs {\(name)}")
            }
        }
        return problems
    }

    /// A template with its placeholders filled.
    public static func fill(_ template: String, code: String, app: String, minutes: Int) -> String {
        template.replacing("{code}", with: code).replacing("{app}", with: app)
            .replacing("{minutes}", with: String(minutes))
    }
}

/// How many SMS segments a text takes: 160 GSM 7-bit characters in one (153 each when split), or 70
/// UCS-2 characters (67 each when split) when any character has no GSM form.
public enum SMSSegments {
    /// The segments a text takes.
    public static func count(_ text: String) -> Int {
        if let septets = MessageTemplate.gsmSeptets(text) {
            return septets <= 160 ? 1 : (septets + 152) / 153
        }
        let units = text.utf16.count
        return units <= 70 ? 1 : (units + 66) / 67
    }
}
