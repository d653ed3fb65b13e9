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
            message.withUnsafeBytes { digest(bytes: $0) }.bytes
        }

        /// The HMAC-SHA256 of `first ‖ 0x00 ‖ second` in UTF-8.
        ///
        /// The message is put together on the stack rather than in an array of its own. The zero
        /// byte keeps the split unambiguous.
        public func authenticationCode(joining first: String, _ second: String) -> [UInt8] {
            digest(joining: first, second).bytes
        }

        /// ``authenticationCode(joining:_:)``, held inline.
        func digest(joining first: String, _ second: String) -> HMACDigest {
            // Read in place where the text is stored as UTF-8 (always, but for bridged strings).
            let inPlace = first.utf8.withContiguousStorageIfAvailable { first in
                second.utf8.withContiguousStorageIfAvailable { second in
                    digest(joining: UnsafeRawBufferPointer(first), UnsafeRawBufferPointer(second))
                }
            }
            if let inPlace = inPlace ?? nil { return inPlace }
            let firstBytes = Array(first.utf8)
            let secondBytes = Array(second.utf8)
            return firstBytes.withUnsafeBytes { first in
                secondBytes.withUnsafeBytes { second in digest(joining: first, second) }
            }
        }

        /// The code of `first ‖ 0x00 ‖ second`, the message put together on the stack rather than in
        /// an array of its own.
        private func digest(
            joining first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer
        ) -> HMACDigest {
            withUnsafeTemporaryAllocation(byteCount: first.count + 1 + second.count, alignment: 1) { buffer in
                UnsafeMutableRawBufferPointer(rebasing: buffer[..<first.count]).copyMemory(from: first)
                buffer[first.count] = 0
                UnsafeMutableRawBufferPointer(rebasing: buffer[(first.count + 1)...]).copyMemory(from: second)
                return digest(bytes: UnsafeRawBufferPointer(buffer))
            }
        }

        /// The 32-byte HMAC-SHA256 of `message` written to the start of `code`, which must hold at
        /// least 32 bytes: no allocation of its own.
        public func authenticationCode(
            _ message: UnsafeRawBufferPointer, into code: UnsafeMutableRawBufferPointer
        ) {
            precondition(code.count >= byteCount, "an HMAC-SHA256 code needs 32 bytes")
            #if canImport(CryptoKit)
                let made = HMAC<SHA256>.authenticationCode(for: message, using: key)
                made.withUnsafeBytes { code.copyMemory(from: $0) }
            #else
                withUnsafePointer(to: prepared) { state in
                    otp_hmac_sha256_with(
                        state, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count,
                        code.baseAddress?.assumingMemoryBound(to: UInt8.self))
                }
            #endif
        }

        private func digest(bytes message: UnsafeRawBufferPointer) -> HMACDigest {
            HMACDigest { authenticationCode(message, into: $0) }
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
