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

    /// Whether text could be an identifier: 1–64 URL-safe characters, so it is safe as a store key.
    public static func isWellFormed(_ text: String) -> Bool {
        let utf8 = text.utf8
        return (1...64).contains(utf8.count) && utf8.allSatisfy { alphabet.contains($0) }
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
