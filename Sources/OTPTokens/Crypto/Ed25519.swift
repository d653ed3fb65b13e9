#if canImport(CryptoKit)
    import CryptoKit
#else
    import CCrypto
#endif

/// Ed25519 (RFC 8032): CryptoKit on Apple platforms, OpenSSL's libcrypto elsewhere.
///
/// libcrypto signs deterministically, as RFC 8032 describes; CryptoKit adds randomness, so its
/// signatures differ from call to call (and from the RFC's vectors) yet verify the same way.
enum Ed25519 {
    /// The length of a private key's seed in bytes.
    static let seedByteCount = 32
    /// The length of a public key in bytes.
    static let publicKeyByteCount = 32
    /// The length of a signature in bytes.
    static let signatureByteCount = 64

    /// The public key of the private key with `seed`, or `nil` when the crypto library failed.
    static func publicKey(seed: [UInt8]) -> [UInt8]? {
        guard seed.count == seedByteCount else { return nil }
        #if canImport(CryptoKit)
            guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else { return nil }
            return Array(key.publicKey.rawRepresentation)
        #else
            var output = [UInt8](repeating: 0, count: publicKeyByteCount)
            let status = seed.withUnsafeBufferPointer { seedBuffer in
                output.withUnsafeMutableBufferPointer { outputBuffer in
                    otp_ed25519_public_key(seedBuffer.baseAddress, outputBuffer.baseAddress)
                }
            }
            return status == 1 ? output : nil
        #endif
    }

    /// The signature of `message` under the private key with `seed`, or `nil` when the crypto library failed.
    static func signature(of message: [UInt8], seed: [UInt8]) -> [UInt8]? {
        guard seed.count == seedByteCount else { return nil }
        #if canImport(CryptoKit)
            guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed),
                let signature = try? key.signature(for: message)
            else { return nil }
            return Array(signature)
        #else
            var output = [UInt8](repeating: 0, count: signatureByteCount)
            let status = seed.withUnsafeBufferPointer { seedBuffer in
                message.withUnsafeBufferPointer { messageBuffer in
                    output.withUnsafeMutableBufferPointer { outputBuffer in
                        otp_ed25519_sign(
                            seedBuffer.baseAddress, messageBuffer.baseAddress, messageBuffer.count,
                            outputBuffer.baseAddress)
                    }
                }
            }
            return status == 1 ? output : nil
        #endif
    }

    /// Whether `signature` is a valid signature of `message` under `publicKey`.
    static func isValidSignature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == signatureByteCount, publicKey.count == publicKeyByteCount else {
            return false
        }
        #if canImport(CryptoKit)
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else {
                return false
            }
            return key.isValidSignature(signature, for: message)
        #else
            let status = publicKey.withUnsafeBufferPointer { keyBuffer in
                message.withUnsafeBufferPointer { messageBuffer in
                    signature.withUnsafeBufferPointer { signatureBuffer in
                        otp_ed25519_verify(
                            keyBuffer.baseAddress, messageBuffer.baseAddress, messageBuffer.count,
                            signatureBuffer.baseAddress, signatureBuffer.count)
                    }
                }
            }
            return status == 1
        #endif
    }
}
