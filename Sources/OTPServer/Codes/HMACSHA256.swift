#if canImport(CryptoKit)
    import CryptoKit
#else
    import CCrypto
#endif

/// HMAC-SHA256 (RFC 2104 with SHA-256): CryptoKit on Apple platforms, OpenSSL's libcrypto elsewhere.
public enum HMACSHA256 {
    /// The length of an authentication code in bytes.
    public static let byteCount = 32

    /// The authentication code of `message` under `key`, or `nil` when the crypto library failed.
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8]? {
        #if canImport(CryptoKit)
            let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
            return Array(code)
        #else
            var out = [UInt8](repeating: 0, count: byteCount)
            let status = key.withUnsafeBufferPointer { keyBuffer in
                message.withUnsafeBufferPointer { messageBuffer in
                    out.withUnsafeMutableBufferPointer { outBuffer in
                        otp_hmac_sha256(
                            keyBuffer.baseAddress, keyBuffer.count, messageBuffer.baseAddress,
                            messageBuffer.count,
                            outBuffer.baseAddress)
                    }
                }
            }
            return status == 1 ? out : nil
        #endif
    }

    /// Whether two byte strings are equal, taking the same time wherever they differ.
    ///
    /// Only the lengths are compared early; they are public (every code hash is 32 bytes).
    public static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices {
            difference |= lhs[index] ^ rhs[index]
        }
        return difference == 0
    }
}
