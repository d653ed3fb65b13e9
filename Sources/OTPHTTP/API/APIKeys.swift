import OTPServer

/// The API keys a server accepts, compared in constant time.
///
/// Each presented key is hashed with HMAC-SHA256 under a per-process random key and compared
/// with every configured key's hash, all of them, whatever the outcome: the time taken tells
/// nothing about which key, or how much of one, matched.
public struct APIKeys: Sendable {
    private let salt: [UInt8]
    private let hashes: [[UInt8]]
    private let scopes: [String]

    /// Accepts these keys; empty strings are ignored.
    public init(_ keys: [String]) {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        self.salt = salt
        let accepted = keys.filter { !$0.isEmpty }
        self.hashes = accepted.compactMap {
            HMACSHA256.authenticationCode(key: salt, message: Array($0.utf8))
        }
        // A stable name per key, the same in every process that has the key: it says whose an
        // idempotency key is without carrying the API key itself.
        self.scopes = accepted.map { key in
            let digest = HMACSHA256.authenticationCode(
                key: Array("otp api key scope".utf8), message: Array(key.utf8))
            return "k" + Hex.encode((digest ?? []).prefix(8))
        }
    }

    /// How many keys are accepted.
    public var count: Int { hashes.count }

    /// Whether an `Authorization` header value is `Bearer <one of the keys>`.
    public func accepts(authorization: String?) -> Bool {
        scope(authorization: authorization) != nil
    }

    /// The stable name of the key an `Authorization` header presents, or `nil` when it presents none
    /// of them: the scope that the caller's idempotency keys belong to.
    public func scope(authorization: String?) -> String? {
        guard let authorization, authorization.count > 7,
            authorization.prefix(7).lowercased() == "bearer "
        else { return nil }
        let presented = authorization.dropFirst(7).drop { $0 == " " }
        guard let hash = HMACSHA256.authenticationCode(key: salt, message: Array(presented.utf8)) else {
            return nil
        }
        var matched: Int?
        for (index, candidate) in hashes.enumerated() where HMACSHA256.constantTimeEqual(candidate, hash) {
            matched = index
        }
        return matched.map { scopes[$0] }
    }
}
