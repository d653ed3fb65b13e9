/// Turns a code into what the store keeps: HMAC-SHA256 under the server's key over (id ‖ 0x00 ‖ code).
///
/// The zero byte keeps the split between id and code unambiguous. Rate-limit keys are derived
/// from the same key, so no full destination or client address is written to a store.
struct CodeHasher: Sendable {
    let secret: [UInt8]
    /// `secret`, prepared once.
    private let key: HMACSHA256.Key

    init(secret: [UInt8]) {
        self.secret = secret
        self.key = HMACSHA256.Key(secret)
    }

    /// The stored form of a code for a verification, or `nil` when the crypto library failed.
    func hash(id: String, code: String) -> [UInt8]? {
        key.authenticationCode(joining: id, code)
    }

    /// ``hash(id:code:)`` held inline, for a check's candidate.
    func digest(id: String, code: String) -> HMACDigest {
        key.digest(joining: id, code)
    }

    /// Whether a candidate code is the one whose hash the store kept, compared in constant time.
    func matches(id: String, code: String, storedHash: [UInt8]) -> Bool {
        guard let candidate = hash(id: id, code: code) else { return false }
        return HMACSHA256.constantTimeEqual(candidate, storedHash)
    }

    /// The HMAC-SHA256 of `message` under the server's key, prepared once: owner tags, the TOTP
    /// box key and recovery codes are all derived this way.
    func mac(_ message: [UInt8]) -> [UInt8] {
        key.authenticationCode(message)
    }

    /// An opaque store key for a value such as a destination or an address: 32 hex digits.
    func opaqueKey(_ purpose: String, _ value: String) -> String? {
        Hex.encode(key.authenticationCode(joining: purpose, value).prefix(16))
    }
}
