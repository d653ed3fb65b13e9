/// Base64url (RFC 4648 section 5) without padding, as JOSE uses it (RFC 7515 section 2).
///
/// Decoding is strict: padding, whitespace, characters outside the URL-safe alphabet, an
/// impossible length and unused trailing bits that are not zero are all refused, so every byte
/// string has exactly one accepted encoding.
public enum Base64URL {
    private static let alphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The value of each ASCII byte in the alphabet, or `0xFF` for a byte outside it.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    /// The unpadded base64url text of `bytes`.
    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(alphabet[Int(group >> 6 & 0x3F)])
            output.append(alphabet[Int(group & 0x3F)])
            index += 3
        }
        switch bytes.count - index {
        case 1:
            let group = UInt32(bytes[index]) << 16
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
        case 2:
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(alphabet[Int(group >> 6 & 0x3F)])
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes that `text` encodes, or `nil` when it is not canonical unpadded base64url.
    public static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 != 1 else { return nil }
        var sextets: [UInt8] = []
        sextets.reserveCapacity(input.count)
        for character in input {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            sextets.append(value)
        }
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3 / 4)
        var index = 0
        while index + 4 <= sextets.count {
            let group =
                UInt32(sextets[index]) << 18 | UInt32(sextets[index + 1]) << 12 | UInt32(sextets[index + 2])
                << 6
                | UInt32(sextets[index + 3])
            output.append(UInt8(group >> 16 & 0xFF))
            output.append(UInt8(group >> 8 & 0xFF))
            output.append(UInt8(group & 0xFF))
            index += 4
        }
        switch sextets.count - index {
        case 2:
            // 12 bits carry one byte; the last 4 must be zero.
            guard sextets[index + 1] & 0x0F == 0 else { return nil }
            output.append(sextets[index] << 2 | sextets[index + 1] >> 4)
        case 3:
            // 18 bits carry two bytes; the last 2 must be zero.
            guard sextets[index + 2] & 0x03 == 0 else { return nil }
            output.append(sextets[index] << 2 | sextets[index + 1] >> 4)
            output.append(sextets[index + 1] << 4 | sextets[index + 2] >> 2)
        default:
            break
        }
        return output
    }
}
