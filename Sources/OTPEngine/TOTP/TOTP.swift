import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import CCrypto
#endif

/// Time-based one-time passwords (RFC 6238) over HOTP (RFC 4226): the codes an authenticator app
/// shows, and the check of a code typed into the same field as an SMS code.
///
/// The check takes a window of ±1 time step and refuses a step at or before the last one accepted,
/// so a code is good once; the caller keeps that step atomically with the factor.
public struct TOTP: Sendable, Hashable {
    /// The HMAC an authenticator uses.
    public enum Algorithm: String, Sendable, Hashable, CaseIterable {
        /// HMAC-SHA1, the default every authenticator app honours.
        case sha1 = "SHA1"
        /// HMAC-SHA256.
        case sha256 = "SHA256"
        /// HMAC-SHA512.
        case sha512 = "SHA512"
    }

    /// The shared secret.
    public let secret: [UInt8]
    /// The HMAC.
    public let algorithm: Algorithm
    /// The code's digits, 6–8.
    public let digits: Int
    /// The time step in seconds.
    public let period: Int

    /// The defaults authenticator apps honour: SHA-1, 6 digits, 30 s.
    public init(secret: [UInt8], algorithm: Algorithm = .sha1, digits: Int = 6, period: Int = 30) {
        self.secret = secret
        self.algorithm = algorithm
        self.digits = min(max(digits, 6), 8)
        self.period = max(1, period)
    }

    /// The time step of a moment: whole periods since the Unix epoch.
    public func step(at time: Date) -> Int64 {
        Int64((time.timeIntervalSince1970 / Double(period)).rounded(.down))
    }

    /// The code for a time.
    public func code(at time: Date) -> String? {
        Self.hotp(
            secret: secret, counter: UInt64(max(0, step(at: time))), digits: digits, algorithm: algorithm)
    }

    /// The step a code belongs to, or `nil` when it is not right.
    ///
    /// A code is right when it is the code of a step within ±`window` steps of `time` that comes after
    /// `lastUsedStep`. The comparison of codes takes the same time wherever they differ.
    public func matchingStep(
        for code: String, at time: Date, window: Int = 1, after lastUsedStep: Int64?
    ) -> Int64? {
        let now = step(at: time)
        var matched: Int64?
        for offset in -window...window {
            let candidate = now + Int64(offset)
            guard candidate >= 0,
                let expected = Self.hotp(
                    secret: secret, counter: UInt64(candidate), digits: digits, algorithm: algorithm)
            else { continue }
            if HMACSHA256.constantTimeEqual(Array(expected.utf8), Array(code.utf8)),
                lastUsedStep.map({ candidate > $0 }) ?? true
            {
                matched = candidate
            }
        }
        return matched
    }

    /// The HOTP value of a counter (RFC 4226 §5.3): dynamic truncation of the HMAC, `digits` long.
    public static func hotp(secret: [UInt8], counter: UInt64, digits: Int, algorithm: Algorithm) -> String? {
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (8 * (7 - $0))) }
        guard let mac = hmac(algorithm, key: secret, message: message), let last = mac.last else {
            return nil
        }
        let offset = Int(last & 0x0F)
        let binary =
            (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    static func hmac(_ algorithm: Algorithm, key: [UInt8], message: [UInt8]) -> [UInt8]? {
        #if canImport(CryptoKit)
            let symmetric = SymmetricKey(data: key)
            switch algorithm {
            case .sha1: return Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: symmetric))
            case .sha256: return Array(HMAC<SHA256>.authenticationCode(for: message, using: symmetric))
            case .sha512: return Array(HMAC<SHA512>.authenticationCode(for: message, using: symmetric))
            }
        #else
            var out = [UInt8](repeating: 0, count: 64)
            var length = 0
            let status = key.withUnsafeBufferPointer { keyBuffer in
                message.withUnsafeBufferPointer { messageBuffer in
                    out.withUnsafeMutableBufferPointer { outBuffer in
                        otp_hmac(
                            algorithm.rawValue, keyBuffer.baseAddress, keyBuffer.count,
                            messageBuffer.baseAddress,
                            messageBuffer.count, outBuffer.baseAddress, outBuffer.count, &length)
                    }
                }
            }
            return status == 1 ? Array(out.prefix(length)) : nil
        #endif
    }

    /// The `otpauth://totp/…` URI an authenticator app scans (the Key URI format): issuer and
    /// account in the label, the secret in base32, and the parameters.
    public func provisioningURI(account: String, issuer: String) -> String {
        func escaped(_ text: String) -> String {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~@")
            return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
        }
        return "otpauth://totp/\(escaped(issuer)):\(escaped(account))?secret=\(Base32.encode(secret))"
            + "&issuer=\(escaped(issuer))&algorithm=\(algorithm.rawValue)&digits=\(digits)&period=\(period)"
    }
}

extension TOTP {
    /// The secret of an `otpauth://totp/…` URI, as an authenticator app reads it, or `nil`.
    public static func secret(inProvisioningURI uri: String) -> [UInt8]? {
        guard let components = URLComponents(string: uri), components.scheme == "otpauth",
            components.host == "totp",
            let text = components.queryItems?.first(where: { $0.name == "secret" })?.value
        else { return nil }
        guard let secret = Base32.decode(text), !secret.isEmpty else { return nil }
        return secret
    }
}

/// Base32 (RFC 4648 §6) without padding, as authenticator secrets are written.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// The text of some bytes.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 0x1F)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1F)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of a text in the canonical encoding (RFC 4648 §3.5): ASCII letters of either case
    /// and the digits 2–7, no padding; `nil` for any other character, for a length no whole number
    /// of bytes has (1, 3 or 6 characters past a multiple of 8), or for non-zero bits past the last
    /// byte.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        var count = 0
        for byte in text.utf8 {
            // ASCII only: upper-casing a whole string would also make letters of `ı` or `ſ`.
            let upper = (0x61...0x7A).contains(byte) ? byte - 0x20 : byte
            guard let value = alphabet.firstIndex(of: upper) else { return nil }
            buffer = ((buffer << 5) | UInt32(value)) & 0xFFFF
            bits += 5
            count += 1
            if bits >= 8 {
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits - 8)))
                bits -= 8
            }
        }
        guard ![1, 3, 6].contains(count % 8), buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }
}

/// AES-256-GCM, to keep secrets (such as TOTP secrets) encrypted at rest under a server key.
public enum SecretBox {
    /// Seals `plain` under a 32-byte key with a fresh 12-byte nonce, as `nonce ‖ cipher ‖ tag`.
    ///
    /// `context` (such as a factor's id) is authenticated, so a box cannot be moved to another record.
    public static func seal(
        _ plain: [UInt8], key: [UInt8], context: [UInt8], using generator: inout some RandomNumberGenerator
    ) -> [UInt8]? {
        guard key.count == 32 else { return nil }
        let nonce = (0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) }
        guard let (cipher, tag) = seal(plain, key: key, nonce: nonce, context: context) else { return nil }
        return nonce + cipher + tag
    }

    /// The plain text of a box, or `nil` when it was not sealed under this key and context.
    public static func open(_ box: [UInt8], key: [UInt8], context: [UInt8]) -> [UInt8]? {
        guard key.count == 32, box.count >= 28 else { return nil }
        let nonce = Array(box.prefix(12))
        let cipher = Array(box.dropFirst(12).dropLast(16))
        let tag = Array(box.suffix(16))
        #if canImport(CryptoKit)
            guard
                let sealed = try? AES.GCM.SealedBox(
                    nonce: AES.GCM.Nonce(data: nonce), ciphertext: cipher, tag: tag)
            else { return nil }
            return (try? AES.GCM.open(sealed, using: SymmetricKey(data: key), authenticating: context)).map(
                Array.init)
        #else
            var plain = [UInt8](repeating: 0, count: cipher.count)
            let status = plain.withUnsafeMutableBufferPointer { plainBuffer in
                otp_aes256gcm_open(
                    key, nonce, context.isEmpty ? nil : context, context.count, cipher.isEmpty ? nil : cipher,
                    cipher.count, tag, plainBuffer.baseAddress)
            }
            return status == 1 ? plain : nil
        #endif
    }

    /// Seals with a given nonce, for known-answer tests only: a nonce must never be used twice.
    package static func sealForTesting(
        _ plain: [UInt8], key: [UInt8], nonce: [UInt8]
    ) -> (cipher: [UInt8], tag: [UInt8])? {
        seal(plain, key: key, nonce: nonce, context: []).map { (cipher: $0.0, tag: $0.1) }
    }

    static func seal(_ plain: [UInt8], key: [UInt8], nonce: [UInt8], context: [UInt8]) -> ([UInt8], [UInt8])?
    {
        guard key.count == 32, nonce.count == 12 else { return nil }
        #if canImport(CryptoKit)
            guard
                let box = try? AES.GCM.seal(
                    plain, using: SymmetricKey(data: key), nonce: AES.GCM.Nonce(data: nonce),
                    authenticating: context)
            else { return nil }
            return (Array(box.ciphertext), Array(box.tag))
        #else
            var cipher = [UInt8](repeating: 0, count: plain.count)
            var tag = [UInt8](repeating: 0, count: 16)
            let status = cipher.withUnsafeMutableBufferPointer { cipherBuffer in
                tag.withUnsafeMutableBufferPointer { tagBuffer in
                    otp_aes256gcm_seal(
                        key, nonce, context.isEmpty ? nil : context, context.count,
                        plain.isEmpty ? nil : plain,
                        plain.count, cipherBuffer.baseAddress, tagBuffer.baseAddress)
                }
            }
            return status == 1 ? (cipher, tag) : nil
        #endif
    }
}
