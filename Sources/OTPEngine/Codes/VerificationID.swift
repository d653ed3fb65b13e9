import Foundation

/// Verification identifiers: `vf_`, the creation time in 8 characters that sort as the time does,
/// then 128 random bits in URL-safe base64 (22 characters).
///
/// The time comes first so that a store keyed by identifier writes each new row beside the last one
/// (one B-tree page for a burst of starts, where random keys dirty a page each). The random part
/// alone makes an identifier unguessable; the time part tells no more than the verification's
/// `createdAt`. Identifiers made before the time part existed (`vf_` and 22 characters) stay valid.
public enum VerificationID {
    /// The prefix every identifier starts with.
    public static let prefix = "vf_"

    private static let alphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The 64 URL-safe characters in byte order, so that times written with them sort as numbers do.
    private static let orderedAlphabet = Array(
        "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)

    /// Characters of the time part: 48 bits of milliseconds since 1970, enough until the year 10889.
    static let timeLength = 8

    /// Characters of the random part: 128 bits.
    static let randomLength = 22

    /// A fresh identifier for a verification created at `time`.
    public static func make(at time: Date, using generator: inout some RandomNumberGenerator) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(prefix.utf8.count + timeLength + randomLength)
        out.append(contentsOf: prefix.utf8)
        appendSortableTime(time, to: &out)
        appendBase64URL(CodeGenerator.bytes(count: 16, using: &generator), to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A fresh identifier for a verification created at `time`, carrying a tag of its owner: the
    /// identifier, then `_` and 8 characters of `tag(base)`, where `base` is the identifier up to the tag.
    package static func make(
        at time: Date, using generator: inout some RandomNumberGenerator, tag: (String) -> [UInt8]
    ) -> String {
        let base = make(at: time, using: &generator)
        return base + "_" + base64URL(Array(tag(base).prefix(6)))
    }

    /// A fresh random token without a time part: `vf_` and 128 random bits.
    public static func make(using generator: inout some RandomNumberGenerator) -> String {
        prefix + base64URL(CodeGenerator.bytes(count: 16, using: &generator))
    }

    /// The part of an owned identifier its tag is made from, and the tag as written, or `nil` when
    /// the identifier carries no owner's tag.
    package static func ownerTag(of id: String) -> (base: String, tag: String)? {
        guard id.hasPrefix(prefix) else { return nil }
        let utf8 = Array(id.utf8)
        for baseLength in [prefix.utf8.count + timeLength + randomLength, prefix.utf8.count + randomLength]
        where utf8.count == baseLength + 9 && utf8[baseLength] == UInt8(ascii: "_") {
            return (
                String(decoding: utf8[..<baseLength], as: UTF8.self),
                String(decoding: utf8[(baseLength + 1)...], as: UTF8.self)
            )
        }
        return nil
    }

    /// The time part: milliseconds since 1970, most significant first, six bits a character.
    ///
    /// Rounded to the nearest millisecond and clamped to 0 ... 2⁴⁸ − 1.
    static func sortableTime(_ time: Date) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(timeLength)
        appendSortableTime(time, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func appendSortableTime(_ time: Date, to out: inout [UInt8]) {
        let milliseconds = (time.timeIntervalSince1970 * 1000).rounded()
        let limit: UInt64 = (1 << 48) - 1
        let value: UInt64
        if milliseconds.isNaN || milliseconds <= 0 {
            value = 0
        } else {
            value = milliseconds >= Double(limit) ? limit : UInt64(milliseconds)
        }
        for position in 0..<timeLength {
            let shift = UInt64(6 * (timeLength - 1 - position))
            out.append(orderedAlphabet[Int((value >> shift) & 0x3F)])
        }
    }

    /// Whether text could be an identifier: 1–64 URL-safe characters, so it is safe as a store key.
    public static func isWellFormed(_ text: String) -> Bool {
        let utf8 = text.utf8
        return (1...64).contains(utf8.count)
            && utf8.allSatisfy {
                (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0)
                    || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            }
    }

    /// URL-safe base64 without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        appendBase64URL(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `bytes` in URL-safe base64 without padding: four characters for each three bytes,
    /// and two or three for a last one or two.
    private static func appendBase64URL(_ bytes: [UInt8], to out: inout [UInt8]) {
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var value = UInt32(bytes[index]) << 16
            if count > 1 { value |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { value |= UInt32(bytes[index + 2]) }
            for position in 0...count {
                out.append(alphabet[Int((value >> (18 - 6 * position)) & 0x3F)])
            }
            index += 3
        }
    }
}
