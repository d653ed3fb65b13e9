/// Lower-case hexadecimal, for keys, signatures and identifiers written as text.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Two lower-case hexadecimal digits per byte.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        // Written straight into the string's storage: one allocation, none for 7 bytes or fewer.
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            var index = 0
            for byte in bytes {
                out[index] = digits[Int(byte >> 4)]
                out[index + 1] = digits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }
}
