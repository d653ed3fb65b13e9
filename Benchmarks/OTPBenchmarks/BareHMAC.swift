#if canImport(CCrypto)
    import CCrypto
#else
    import OTPServer
#endif

/// HMAC-SHA256 with nothing around it: the benchmark's measure of a check's one unavoidable cost.
///
/// On Linux, the same prepared-key call into libcrypto that the server makes, writing to the
/// stack; elsewhere, the server's own `HMACSHA256.Key`.
struct BareHMAC: @unchecked Sendable {
    #if canImport(CCrypto)
        // Immutable after init; each call copies the prepared states onto its own stack.
        private let prepared: otp_hmac_sha256_key
    #else
        private let key: HMACSHA256.Key
    #endif

    init(key: [UInt8]) {
        #if canImport(CCrypto)
            var prepared = otp_hmac_sha256_key()
            key.withUnsafeBufferPointer { otp_hmac_sha256_prepare(&prepared, $0.baseAddress, $0.count) }
            self.prepared = prepared
        #else
            self.key = HMACSHA256.Key(key)
        #endif
    }

    /// The first byte of `message`'s code, so that the work cannot be left out.
    func firstByte(of message: [UInt8]) -> UInt8 {
        #if canImport(CCrypto)
            var out: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &out) { out in
                message.withUnsafeBufferPointer { message in
                    withUnsafePointer(to: prepared) { state in
                        otp_hmac_sha256_with(
                            state, message.baseAddress, message.count,
                            out.baseAddress?.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
            return UInt8(truncatingIfNeeded: out.0)
        #else
            return key.authenticationCode(message)[0]
        #endif
    }
}
