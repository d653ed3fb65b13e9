import Foundation

/// The one normalisation every way of entering a code goes through (UX F3).
///
/// Typing, paste and system autofill on the screen, and the server's check,
/// all use it: separators and a letter prefix such as `G-` are dropped, any
/// Unicode decimal digit becomes ASCII, letters are upper-cased for an
/// alphanumeric format, and a code inserted twice is kept once. For an
/// alphanumeric format, a pasted sentence gives the one word in it that is a
/// whole code.
public enum CodeNormalizer {
    /// Normalises text for a format and cuts it to the format's length (the screen's rule).
    public static func normalize(_ text: String, for format: CodeFormat) -> String {
        String(normalizeUncut(text, for: format).prefix(format.length))
    }

    /// Normalises text without cutting it (the server's rule).
    ///
    /// A result longer than the format's length means the text was not a code.
    public static func normalizeUncut(_ text: String, for format: CodeFormat) -> String {
        if isNormalDigits(text, for: format) { return text }
        if let word = codeWord(in: text, for: format) { return word }
        var kept = keptCharacters(of: stripPrefix(text, for: format), for: format)
        if kept.count == format.length * 2 {
            let half = kept.index(kept.startIndex, offsetBy: format.length)
            if kept[..<half] == kept[half...] {
                kept = String(kept[..<half])
            }
        }
        return kept
    }

    /// The code a submitted text stands for, normalised, or `nil` when it is not one whole code of
    /// the format (the server's judgement: no cut, and no attempt taken for `nil`).
    public static func wholeCode(_ text: String, for format: CodeFormat) -> String? {
        if isNormalDigits(text, for: format) { return text }
        let normalized = normalizeUncut(text, for: format)
        return normalized.count == format.length ? normalized : nil
    }

    /// The one code in a pasted text that is more than a code, such as a whole message (UX F12), or
    /// `nil` when it holds no single code.
    ///
    /// The origin-bound line's `#code` (`@example.com #482019`) comes first; else the one run of
    /// exactly the code's length: for digits, digits with at most one space, dash or dot between
    /// two of them (`482 019`); for letters and digits, a word. Several different runs, or none,
    /// give `nil`, so "Acme: valid for 5 minutes. Your code is 482019" gives `482019` and never
    /// `548201`.
    public static func code(inMessage text: String, for format: CodeFormat) -> String? {
        if let bound = originBoundCode(in: text, for: format) { return bound }
        let runs: [String]
        switch format.kind {
        case .digits: runs = digitRuns(in: text, for: format)
        case .alphanumeric:
            runs = text.split(whereSeparator: { $0.isWhitespace })
                .map { keptCharacters(of: stripPrefix(String($0), for: format), for: format) }
        }
        let whole = runs.filter { $0.count == format.length }
        if Set(whole).count == 1 { return whole[0] }
        guard format.kind == .alphanumeric else { return nil }
        let withDigit = whole.filter { $0.contains(where: { $0.isASCII && $0.isNumber }) }
        return Set(withDigit).count == 1 ? withDigit[0] : nil
    }

    /// The `#code` of an origin-bound line (`@example.com #482019`, the WebOTP format), when it fills
    /// the format.
    private static func originBoundCode(in text: String, for format: CodeFormat) -> String? {
        let words = text.split(whereSeparator: { $0.isWhitespace })
        for (index, word) in words.enumerated().dropFirst() where word.hasPrefix("#") {
            guard words[index - 1].hasPrefix("@") else { continue }
            let code = keptCharacters(of: String(word.dropFirst()), for: format)
            if code.count == format.length { return code }
        }
        return nil
    }

    /// The runs of digits in a text (any Unicode decimal digit, as ASCII); one space, dash or dot
    /// between two digits keeps a run going.
    private static func digitRuns(in text: String, for format: CodeFormat) -> [String] {
        var runs: [String] = []
        var current = ""
        var pendingSeparator = false
        for character in text {
            let kept = keptCharacters(of: String(character), for: format)
            if !kept.isEmpty {
                current += kept
                pendingSeparator = false
            } else if !current.isEmpty, !pendingSeparator,
                character == " " || character == "." || dashes.contains(character)
            {
                pendingSeparator = true
            } else {
                if !current.isEmpty { runs.append(current) }
                current = ""
                pendingSeparator = false
            }
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }

    /// Whether text is ASCII digits of a digit format's length: the common case, which is its own
    /// normal form and needs no counting of characters.
    private static func isNormalDigits(_ text: String, for format: CodeFormat) -> Bool {
        guard format.kind == .digits, text.utf8.count == format.length else { return false }
        let isDigit = { (byte: UInt8) in byte &- UInt8(ascii: "0") < 10 }
        // Read in place where the text is stored as UTF-8 (always, but for bridged strings).
        return text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isDigit) }
            ?? text.utf8.allSatisfy(isDigit)
    }

    /// For an alphanumeric format, the one word of a pasted sentence that is a whole code.
    ///
    /// Letters are code characters there, so `Your code is AB12CD` would otherwise keep
    /// the letters of every word. A word counts when its own characters fill the code
    /// exactly; when several do, only those with a digit count. Anything but exactly one
    /// such code leaves the text to the general rule, so `AB 12 CD` is still one code.
    static func codeWord(in text: String, for format: CodeFormat) -> String? {
        guard format.kind == .alphanumeric else { return nil }
        let words = text.split(whereSeparator: { $0.isWhitespace })
        guard words.count > 1 else { return nil }
        let whole = words.map { keptCharacters(of: stripPrefix(String($0), for: format), for: format) }
            .filter { $0.count == format.length }
        let withDigit = whole.filter { $0.contains(where: { $0.isASCII && $0.isNumber }) }
        for candidates in [whole, withDigit] where Set(candidates).count == 1 {
            return candidates[0]
        }
        return nil
    }

    /// The format's characters of the text, in order, after digit mapping and upper-casing.
    static func keptCharacters(of text: String, for format: CodeFormat) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            guard let mapped = map(scalar, for: format), format.allows(mapped) else { continue }
            result.append(mapped)
        }
        return result
    }

    /// Maps one scalar to the ASCII character it stands for, or `nil`.
    private static func map(_ scalar: Unicode.Scalar, for format: CodeFormat) -> Character? {
        if scalar.properties.numericType == .decimal, let value = scalar.properties.numericValue,
            value >= 0, value <= 9, value == value.rounded()
        {
            return Character(String(Int(value)))
        }
        guard format.kind == .alphanumeric else { return nil }
        if scalar.isASCII {
            return Character(String(scalar).uppercased())
        }
        // Full-width Latin letters (U+FF21–U+FF3A, U+FF41–U+FF5A) stand for their ASCII forms.
        switch scalar.value {
        case 0xFF21...0xFF3A: return Unicode.Scalar(scalar.value - 0xFF21 + 0x41).map(Character.init)
        case 0xFF41...0xFF5A: return Unicode.Scalar(scalar.value - 0xFF41 + 0x41).map(Character.init)
        default: return nil
        }
    }

    /// Drops a leading letter prefix such as `G-` or `ABC–`.
    ///
    /// For digit codes the letters would be dropped anyway; for alphanumeric codes the
    /// prefix is dropped only when what follows still fills the code, so `ABC-123`
    /// stays a six-character code.
    private static func stripPrefix(_ text: String, for format: CodeFormat) -> String {
        let trimmed = text.drop(while: { $0.isWhitespace })
        let letters = trimmed.prefix(while: { $0.isASCII && $0.isLetter })
        guard (1...3).contains(letters.count) else { return text }
        let afterLetters = trimmed.dropFirst(letters.count)
        guard let dash = afterLetters.first, dashes.contains(dash) else { return text }
        let rest = String(afterLetters.dropFirst())
        if format.kind == .alphanumeric, keptCharacters(of: rest, for: format).count < format.length {
            return text
        }
        return rest
    }

    /// The rules other renderers (the hosted page's script) need to normalise as this type does,
    /// as data: the zero of every Unicode decimal digit block, the prefix dashes, the longest letter
    /// prefix, and the full-width Latin letter ranges.
    public static let table = NormalizationTable(
        decimalZeros: (0...0x10FFFF).compactMap { value -> UInt32? in
            guard let scalar = Unicode.Scalar(value), scalar.properties.numericType == .decimal,
                scalar.properties.numericValue == 0
            else { return nil }
            return scalar.value
        },
        dashes: dashes.map(String.init).sorted(),
        maxPrefixLetters: 3,
        fullWidthLatin: [0xFF21...0xFF3A, 0xFF41...0xFF5A])

    /// The dash characters a prefix may end with.
    private static let dashes: Set<Character> = [
        "-", "\u{2010}", "\u{2011}", "\u{2012}", "\u{2013}", "\u{2014}", "\u{2212}",
    ]
}

/// ``CodeNormalizer``'s rules as data, for a renderer in another language.
public struct NormalizationTable: Sendable, Hashable, Codable {
    /// The code point of each Unicode decimal digit zero; digit `d` of a block is `zero + d`.
    public var decimalZeros: [UInt32]
    /// The characters a dropped letter prefix may end with, such as `-` in `G-482019`.
    public var dashes: [String]
    /// The most ASCII letters a dropped prefix may have.
    public var maxPrefixLetters: Int
    /// The full-width Latin letter ranges that stand for ASCII letters in alphanumeric codes.
    public var fullWidthLatin: [ClosedRange<UInt32>]
}
