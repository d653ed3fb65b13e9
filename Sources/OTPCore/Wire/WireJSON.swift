import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The pieces of JSON that hot paths write straight to bytes, exactly as `WireCoding.encoder()`
/// writes them: strings with Foundation's escapes, and RFC 3339 UTC times with milliseconds.
///
/// The server's response bodies and the outbox lines are built from these instead of a
/// `JSONEncoder`; tests hold the two outputs equal.
public enum WireJSON {
    // A `JSONEncoder` cost a tenth of a check's time.
    /// A JSON string as Foundation's encoder writes it: `"` and `\` escaped, control characters as
    /// `\b \f \n \r \t` or `\u00XX`, everything else (slashes, non-ASCII) as is.
    public static func string(_ value: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        escaped(value, into: &out, controls: .named)
        out.append(UInt8(ascii: "\""))
    }

    /// How control characters are escaped inside a string.
    public enum ControlEscapes: Sendable {
        /// `\b \f \n \r \t` where JSON names one, else `\u00XX`: Foundation's encoder.
        case named
        /// Always `\u00XX`.
        case hex
    }

    /// Appends the inside of `value`'s JSON string literal, without the quotes: `"` and `\`
    /// escaped, control characters as `controls` says, every other byte as is; the runs between
    /// escaped bytes go in whole.
    public static func escaped(_ value: String, into out: inout [UInt8], controls: ControlEscapes) {
        var value = value
        value.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                escape(byte, into: &out, controls: controls)
                start = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
    }

    private static func escape(_ byte: UInt8, into out: inout [UInt8], controls: ControlEscapes) {
        out.append(UInt8(ascii: "\\"))
        if controls == .hex, byte < 0x20 {
            let hex: StaticString = "0123456789abcdef"
            out.append(contentsOf: "u00".utf8)
            hex.withUTF8Buffer { digits in
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 15)])
            }
            return
        }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
        case 0x08: out.append(UInt8(ascii: "b"))
        case 0x0C: out.append(UInt8(ascii: "f"))
        case 0x0A: out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(UInt8(ascii: "r"))
        case 0x09: out.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            out.append(contentsOf: "u00".utf8)
            hex.withUTF8Buffer { digits in
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 15)])
            }
        }
    }

    /// A time as `2026-11-30T07:00:30.250Z`: UTC, the fraction of the second truncated to
    /// milliseconds exactly as Foundation's ISO 8601 style does it.
    public static func timestamp(_ date: Date) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        timestamp(date, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``timestamp(_:)``'s text.
    public static func timestamp(_ date: Date, into out: inout [UInt8]) {
        let interval = date.timeIntervalSince1970
        let whole = interval.rounded(.down)
        var seconds = time_t(whole)
        let fraction = min(999, Int(((interval - whole) * 1000).rounded(.down)))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        digits(Int(parts.tm_year) + 1900, 4, into: &out)
        out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2, into: &out)
        out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2, into: &out)
        out.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2, into: &out)
        out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2, into: &out)
        out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2, into: &out)
        out.append(UInt8(ascii: "."))
        digits(fraction, 3, into: &out)
        out.append(UInt8(ascii: "Z"))
    }

    /// Appends a whole number in decimal.
    public static func number(_ value: Int, into out: inout [UInt8]) {
        if value < 0 {
            out.append(UInt8(ascii: "-"))
            // The magnitude of Int.min does not fit in an Int; as UInt it does.
            unsigned(value.magnitude, into: &out)
        } else {
            unsigned(UInt(value), into: &out)
        }
    }

    private static func unsigned(_ value: UInt, into out: inout [UInt8]) {
        // Digits are made last first into a stack buffer (20 holds UInt.max), then appended at once.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var rest = value
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }

    private static func digits(_ value: Int, _ width: Int, into out: inout [UInt8]) {
        let end = out.count
        out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width))
        var rest = value
        var index = end + width
        while index > end {
            index -= 1
            out[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
    }
}
