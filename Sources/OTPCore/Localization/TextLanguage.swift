import Foundation

/// A language the screen's sentences are written in.
///
/// Every sentence a user reads or hears on the screen (the status line, the
/// buttons, announcements, accessibility labels, the keypad, the terminal's
/// hints) comes from ``StringCatalog`` in one of these languages. The HTTP API's
/// `message` stays English: clients translate from its `code`.
public enum TextLanguage: String, Sendable, Hashable, CaseIterable, Codable {
    /// English, the fallback for any other language.
    case english = "en"
    /// German.
    case german = "de"
    /// Arabic, written right to left.
    case arabic = "ar"
    /// Japanese.
    case japanese = "ja"

    /// The language of a BCP 47 or POSIX locale identifier ("de-CH", "ar_EG", "ja_JP.UTF-8"), or `nil`
    /// when the catalog does not have it.
    public init?(identifier: String) {
        let code = identifier.lowercased().prefix { $0.isLetter }
        guard let language = TextLanguage(rawValue: String(code)) else { return nil }
        self = language
    }

    /// The first of the identifiers the catalog has, in order of preference; English if none.
    public static func preferred(from identifiers: [String]) -> TextLanguage {
        identifiers.lazy.compactMap(TextLanguage.init(identifier:)).first ?? .english
    }

    /// The user's preferred language among the catalog's (`Locale.preferredLanguages`), English if none.
    ///
    /// An app localized into fewer languages should pass its own choice instead, so the
    /// screen speaks the app's language.
    public static var preferred: TextLanguage { preferred(from: Locale.preferredLanguages) }

    /// Whether the language is written right to left.
    public var isRightToLeft: Bool { self == .arabic }

    /// The CLDR plural category of a whole number in this language.
    ///
    /// English and German have "one" and "other", Japanese only "other", Arabic
    /// all six: zero, one, two, few (3–10 after hundreds), many (11–99 after
    /// hundreds) and other.
    public func pluralCategory(_ number: Int) -> PluralCategory {
        let n = number.magnitude
        switch self {
        case .english, .german:
            return n == 1 ? .one : .other
        case .japanese:
            return .other
        case .arabic:
            switch (n, n % 100) {
            case (0, _): return .zero
            case (1, _): return .one
            case (2, _): return .two
            case (_, 3...10): return .few
            case (_, 11...99): return .many
            default: return .other
            }
        }
    }
}

/// A CLDR plural category: which form of a sentence a number takes.
public enum PluralCategory: String, Sendable, Hashable, CaseIterable, Codable {
    /// Arabic 0.
    case zero
    /// 1 in English, German and Arabic.
    case one
    /// Arabic 2.
    case two
    /// Arabic 3–10 (and 103–110, …).
    case few
    /// Arabic 11–99 (and 111–199, …).
    case many
    /// Everything else; every plural entry has this form.
    case other
}
