import OTPServer

/// The API keys a server accepts, compared in constant time.
///
/// Each presented key is hashed with HMAC-SHA256 under a per-process random key and compared
/// with every configured key's hash, all of them, whatever the outcome: the time taken tells
/// nothing about which key, or how much of one, matched.
public struct APIKeys: Sendable {
    private let salt: [UInt8]
    private let hashes: [[UInt8]]

    /// Accepts these keys; empty strings are ignored.
    public init(_ keys: [String]) {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        self.salt = salt
        self.hashes = keys.filter { !$0.isEmpty }.compactMap {
            HMACSHA256.authenticationCode(key: salt, message: Array($0.utf8))
        }
    }

    /// How many keys are accepted.
    public var count: Int { hashes.count }

    /// Whether an `Authorization` header value is `Bearer <one of the keys>`.
    public func accepts(authorization: String?) -> Bool {
        guard let authorization, authorization.count > 7,
            authorization.prefix(7).lowercased() == "bearer "
        else { return false }
        let presented = authorization.dropFirst(7).drop { $0 == " " }
        guard let hash = HMACSHA256.authenticationCode(key: salt, message: Array(presented.utf8)) else {
            return false
        }
        var matched = false
        for candidate in hashes where HMACSHA256.constantTimeEqual(candidate, hash) {
            matched = true
        }
        return matched
    }
}
