#if canImport(CryptoKit)
    import CryptoKit
#else
    import CCrypto
#endif

/// SHA-256 (FIPS 180-4): CryptoKit on Apple platforms, OpenSSL's libcrypto elsewhere.
enum SHA256Hash {
    /// The length of a digest in bytes.
    static let byteCount = 32

    /// The digest of `message`, or `nil` when the crypto library failed.
    static func hash(_ message: [UInt8]) -> [UInt8]? {
        #if canImport(CryptoKit)
            return Array(SHA256.hash(data: message))
        #else
            var output = [UInt8](repeating: 0, count: byteCount)
            let status = message.withUnsafeBufferPointer { messageBuffer in
                output.withUnsafeMutableBufferPointer { outputBuffer in
                    otp_sha256(messageBuffer.baseAddress, messageBuffer.count, outputBuffer.baseAddress)
                }
            }
            return status == 1 ? output : nil
        #endif
    }
}
