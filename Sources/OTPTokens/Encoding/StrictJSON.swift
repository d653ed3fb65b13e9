/// A strict RFC 8259 check run before decoding a token's header or claims, or a key set.
///
/// Foundation's decoders accept trailing commas and keep the first of duplicate member names,
/// while RFC 7515 section 5.2 and RFC 7519 section 4 ask a parser to refuse duplicates or keep the
/// last. This check refuses duplicates at any depth (compared after unescaping), trailing commas,
/// lone surrogates, invalid UTF-8, text after the value and nesting deeper than a small limit.
package struct StrictJSON {
    private let bytes: [UInt8]
    private var index = 0
    private let maximumDepth: Int

    private init(_ bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    /// Whether `bytes` are exactly one JSON value under these rules.
    package static func isValid(_ bytes: [UInt8], maximumDepth: Int = 16) -> Bool {
        var parser = StrictJSON(bytes, maximumDepth: maximumDepth)
        guard parser.value(depth: 0) else { return false }
        parser.skipWhitespace()
        return parser.index == bytes.count
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            index += 1
        }
    }

    private mutating func value(depth: Int) -> Bool {
        skipWhitespace()
        switch current {
        case UInt8(ascii: "{"): return object(depth: depth + 1)
        case UInt8(ascii: "["): return array(depth: depth + 1)
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    private mutating func object(depth: Int) -> Bool {
        guard depth <= maximumDepth else { return false }
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return true
        }
        var names: Set<String> = []
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\""), let name = string(), names.insert(name).inserted else {
                return false
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return false }
            index += 1
            guard value(depth: depth) else { return false }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return true
            default: return false
            }
        }
    }

    private mutating func array(depth: Int) -> Bool {
        guard depth <= maximumDepth else { return false }
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return true
        }
        while true {
            guard value(depth: depth) else { return false }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return true
            default: return false
            }
        }
    }

    /// The unescaped text of the string at `index`, or `nil` when it is not a valid JSON string.
    private mutating func string() -> String? {
        index += 1
        var text: [UInt8] = []
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return Self.validUTF8(text)
            case UInt8(ascii: "\\"):
                guard let escaped = current else { return nil }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    UTF8.encode(scalar) { text.append($0) }
                default: return nil
                }
            case 0x00..<0x20:
                return nil
            default:
                text.append(byte)
            }
        }
        return nil
    }

    /// The scalar of a `\u` escape (after the `u`), joining a surrogate pair; `nil` for a lone surrogate.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hexQuad() else { return nil }
        if (0xD800..<0xDC00).contains(high) {
            guard current == UInt8(ascii: "\\"), index + 1 < bytes.count,
                bytes[index + 1] == UInt8(ascii: "u")
            else { return nil }
            index += 2
            guard let low = hexQuad(), (0xDC00..<0xE000).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
    }

    private mutating func hexQuad() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    private mutating func literal(_ text: String) -> Bool {
        let expected = Array(text.utf8)
        guard index + expected.count <= bytes.count,
            bytes[index..<index + expected.count].elementsEqual(expected)
        else { return false }
        index += expected.count
        return true
    }

    /// `bytes` as a string when they are valid UTF-8; otherwise `nil`.
    private static func validUTF8(_ bytes: [UInt8]) -> String? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var text = ""
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): text.unicodeScalars.append(scalar)
            case .emptyInput: return text
            case .error: return nil
            }
        }
    }

    private mutating func number() -> Bool {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            return false
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index > start
    }

    private mutating func digits() -> Int {
        var count = 0
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            index += 1
            count += 1
        }
        return count
    }
}
