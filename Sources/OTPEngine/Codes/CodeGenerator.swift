import OTPCore

/// Draws one-time codes uniformly from a random number generator.
///
/// Each character comes from one random byte by rejection sampling: bytes at or above the
/// largest multiple of the alphabet's size are thrown away, so every character is equally
/// likely (no modulo bias). In production the generator is `SystemRandomNumberGenerator`,
/// the operating system's CSPRNG.
public enum CodeGenerator {
    /// The characters a format's codes are drawn from, in order.
    public static func alphabet(for format: CodeFormat) -> [Character] {
        let digits = Array("0123456789")
        switch format.kind {
        case .digits: return digits
        case .alphanumeric: return digits + Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        }
    }

    /// A fresh code of the format's length.
    public static func code(
        for format: CodeFormat, using generator: inout some RandomNumberGenerator
    ) -> String {
        let alphabet = alphabet(for: format)
        let size = alphabet.count
        let limit = 256 - 256 % size
        var result = ""
        var bytes = ByteSource()
        while result.count < format.length {
            let byte = Int(bytes.next(using: &generator))
            guard byte < limit else { continue }
            result.append(alphabet[byte % size])
        }
        return result
    }

    /// Random bytes from a generator.
    public static func bytes(count: Int, using generator: inout some RandomNumberGenerator) -> [UInt8] {
        var source = ByteSource()
        return (0..<count).map { _ in source.next(using: &generator) }
    }
}

/// Hands out the bytes of 64-bit random words one at a time.
private struct ByteSource {
    private var word: UInt64 = 0
    private var left = 0

    mutating func next(using generator: inout some RandomNumberGenerator) -> UInt8 {
        if left == 0 {
            word = generator.next()
            left = 8
        }
        let byte = UInt8(truncatingIfNeeded: word)
        word >>= 8
        left -= 1
        return byte
    }
}
