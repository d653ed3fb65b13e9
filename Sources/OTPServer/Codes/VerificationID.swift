/// Verification identifiers: `vf_` and 128 random bits in URL-safe base64 (22 characters).
public enum VerificationID {
    /// The prefix every identifier starts with.
    public static let prefix = "vf_"

    private static let alphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// A fresh identifier.
    public static func make(using generator: inout some RandomNumberGenerator) -> String {
        prefix + base64URL(CodeGenerator.bytes(count: 16, using: &generator))
    }

    /// A fresh identifier that carries a tag of its owner: `vf_` + 22 random characters + `_` +
    /// 8 characters of `tag(base)`, where `base` is the identifier up to the tag.
    public static func make(
        using generator: inout some RandomNumberGenerator, tag: (String) -> [UInt8]
    ) -> String {
        let base = make(using: &generator)
        return base + "_" + base64URL(Array(tag(base).prefix(6)))
    }

    /// The part of an owned identifier its tag is made from, and the tag as written, or `nil` when
    /// the identifier carries no owner's tag.
    public static func ownerTag(of id: String) -> (base: String, tag: String)? {
        let utf8 = Array(id.utf8)
        let baseLength = prefix.utf8.count + 22
        guard utf8.count == baseLength + 9, utf8[baseLength] == UInt8(ascii: "_"), id.hasPrefix(prefix) else {
            return nil
        }
        return (
            String(decoding: utf8[..<baseLength], as: UTF8.self),
            String(decoding: utf8[(baseLength + 1)...], as: UTF8.self)
        )
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
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = chunk.enumerated().reduce(UInt32(0)) {
                $0 | UInt32($1.element) << (16 - 8 * $1.offset)
            }
            let characters = chunk.count + 1
            for position in 0..<characters {
                out.append(alphabet[Int((value >> (18 - 6 * position)) & 0x3F)])
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
