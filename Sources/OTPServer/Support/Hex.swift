/// Lower-case hexadecimal, for keys, signatures and identifiers written as text.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Two lower-case hexadecimal digits per byte.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
