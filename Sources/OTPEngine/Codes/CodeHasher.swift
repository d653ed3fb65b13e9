import OTPCore

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
    ///
    /// A code that approves a transaction is hashed with it: the message is
    /// `id ‖ 0x00 ‖ code ‖ 0x00 ‖ "txn" ‖ 0x00 ‖ canonical JSON`, so the same code does not
    /// approve another transaction, and a stored transaction changed behind the server's back
    /// makes every code wrong.
    func hash(id: String, code: String, binding: String? = nil) -> [UInt8]? {
        key.authenticationCode(joining: id, Self.bound(code, binding))
    }

    /// ``hash(id:code:binding:)`` held inline, for a check's candidate.
    func digest(id: String, code: String, binding: String? = nil) -> HMACDigest {
        guard let binding else { return key.digest(joining: id, code) }
        return key.digest(joining: id, Self.bound(code, binding))
    }

    /// What a code's hash covers besides the id: the code, and the transaction's canonical JSON.
    static func binding(for transaction: TransactionDetails?) -> String? {
        transaction.map { "txn\u{0}" + $0.canonicalJSON }
    }

    private static func bound(_ code: String, _ binding: String?) -> String {
        guard let binding else { return code }
        return code + "\u{0}" + binding
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
