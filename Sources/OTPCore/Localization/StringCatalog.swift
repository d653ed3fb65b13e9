import Foundation

/// One sentence of the catalog in one language: fixed text, or forms chosen by a number.
///
/// Placeholders are written `{name}` and filled from the arguments given to
/// ``StringCatalog/string(_:in:_:)``.
public enum CatalogEntry: Sendable, Hashable {
    /// The same text for every number.
    case text(String)
    /// Forms chosen by the plural category of the argument `on`; `exact` forms take
    /// precedence for the numbers they name (as ICU's `=8`), and `.other` must be present.
    case plural(on: String, forms: [PluralCategory: String], exact: [Int: String] = [:])

    /// Every text this entry can produce.
    public var texts: [String] {
        switch self {
        case .text(let text): [text]
        case .plural(_, let forms, let exact): Array(forms.values) + Array(exact.values)
        }
    }
}

/// A value filling a placeholder.
public enum TextArgument: Sendable, Hashable, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    /// A whole number; it also chooses a plural form.
    case number(Int)
    /// Text put in as it is.
    case text(String)

    /// Creates a number argument.
    public init(integerLiteral value: Int) { self = .number(value) }
    /// Creates a text argument.
    public init(stringLiteral value: String) { self = .text(value) }

    var rendered: String {
        switch self {
        case .number(let number): String(number)
        case .text(let text): text
        }
    }
}

/// The screen's sentences in every language the kit ships: English, German, Arabic, Japanese.
///
/// Each language is a table from ``TextKey`` to ``CatalogEntry``, with plural
/// forms by CLDR category. A key missing in a language falls back to English;
/// the tests require every key in every language, with the same placeholders.
public enum StringCatalog {
    /// The table of a language.
    public static func table(_ language: TextLanguage) -> [TextKey: CatalogEntry] {
        switch language {
        case .english: english
        case .german: german
        case .arabic: arabic
        case .japanese: japanese
        }
    }

    /// The sentence for a key in a language, placeholders filled and the plural form chosen.
    public static func string(
        _ key: TextKey, in language: TextLanguage, _ arguments: [String: TextArgument] = [:]
    )
        -> String
    {
        let template = self.template(key, in: language) { selector in
            if case .number(let value) = arguments[selector] { value } else { 0 }
        }
        return fill(template) { name in arguments.first(where: { $0.key.utf8.elementsEqual(name) })?.value }
    }

    /// ``string(_:in:_:)`` with one number argument, `name`: what the server's most frequent answer,
    /// a wrong code's attempts left, needs, without a dictionary of arguments made and searched.
    public static func string(
        _ key: TextKey, in language: TextLanguage, number: Int, named name: String
    ) -> String {
        let template = self.template(key, in: language) { selector in selector == name ? number : 0 }
        return fill(template) { placeholder in placeholder.elementsEqual(name.utf8) ? .number(number) : nil }
    }

    /// An entry of an app's own (``ScreenText`` overrides), placeholders filled and the plural form
    /// chosen by a language's rules.
    public static func string(
        _ entry: CatalogEntry, pluralRulesOf language: TextLanguage, _ arguments: [String: TextArgument] = [:]
    ) -> String {
        let template = self.template(entry, in: language) { selector in
            if case .number(let value) = arguments[selector] { value } else { 0 }
        }
        return fill(template) { name in arguments.first(where: { $0.key.utf8.elementsEqual(name) })?.value }
    }

    /// The text of a key in a language before its placeholders are filled: for a plural entry, the
    /// form for the number `number(selector)` gives.
    private static func template(
        _ key: TextKey, in language: TextLanguage, number: (String) -> Int
    ) -> String {
        template(table(language)[key] ?? english[key] ?? .text(key.rawValue), in: language, number: number)
    }

    private static func template(
        _ entry: CatalogEntry, in language: TextLanguage, number: (String) -> Int
    ) -> String {
        switch entry {
        case .text(let text):
            return text
        case .plural(let selector, let forms, let exact):
            let value = number(selector)
            return exact[value] ?? forms[language.pluralCategory(value)] ?? forms[.other] ?? ""
        }
    }

    /// The placeholder names in a text, in order of appearance.
    public static func placeholders(in text: String) -> [String] {
        var names: [String] = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    /// Fills `{name}` placeholders in one pass; a placeholder without an argument stays as it is,
    /// and an argument's own text is never searched for placeholders.
    ///
    /// Works on the UTF-8 bytes, into one byte buffer; `argument` finds a placeholder's value from
    /// its name's bytes, so no string is made for a name, and none is hashed.
    private static func fill(
        _ template: String, _ argument: (Slice<UnsafeBufferPointer<UInt8>>) -> TextArgument?
    ) -> String {
        var text = template
        let filled = text.withUTF8 { bytes -> String? in
            let open = UInt8(ascii: "{")
            let close = UInt8(ascii: "}")
            guard var cursor = bytes.firstIndex(of: open) else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 16)
            var copied = 0
            while let start = bytes[cursor...].firstIndex(of: open),
                let end = bytes[start...].firstIndex(of: close)
            {
                if let value = argument(bytes[(start + 1)..<end]) {
                    out.append(contentsOf: bytes[copied..<start])
                    switch value {
                    case .number(let number): out.append(contentsOf: String(number).utf8)
                    case .text(let text): out.append(contentsOf: text.utf8)
                    }
                    copied = end + 1
                }
                cursor = end + 1
            }
            out.append(contentsOf: bytes[copied...])
            return String(decoding: out, as: UTF8.self)
        }
        return filled ?? template
    }
}
