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
        Key(key).authenticationCode(message)
    }

    /// A key prepared once for many codes, so each code costs only the hashing of its message.
    ///
    /// The server hashes every code and derives every rate-limit key under one secret; preparing
    /// it once takes the key schedule and the library's algorithm lookup out of each request.
    public struct Key: @unchecked Sendable {
        // Immutable after init; each call copies the prepared states onto its own stack.
        #if canImport(CryptoKit)
            private let key: SymmetricKey
        #else
            private let prepared: otp_hmac_sha256_key
        #endif

        /// Prepares `key` (any length; longer than 64 bytes is hashed first, as RFC 2104 says).
        public init(_ key: [UInt8]) {
            #if canImport(CryptoKit)
                self.key = SymmetricKey(data: key)
            #else
                var prepared = otp_hmac_sha256_key()
                key.withUnsafeBufferPointer { otp_hmac_sha256_prepare(&prepared, $0.baseAddress, $0.count) }
                self.prepared = prepared
            #endif
        }

        /// The 32-byte HMAC-SHA256 of `message` under this key.
        public func authenticationCode(_ message: [UInt8]) -> [UInt8] {
            #if canImport(CryptoKit)
                return Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
            #else
                var out = [UInt8](repeating: 0, count: byteCount)
                withUnsafePointer(to: prepared) { state in
                    message.withUnsafeBufferPointer { messageBuffer in
                        out.withUnsafeMutableBufferPointer { outBuffer in
                            otp_hmac_sha256_with(
                                state, messageBuffer.baseAddress, messageBuffer.count, outBuffer.baseAddress)
                        }
                    }
                }
                return out
            #endif
        }
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
