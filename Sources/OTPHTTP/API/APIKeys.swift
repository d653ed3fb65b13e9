import OTPEngine

/// The API keys a server accepts, compared in constant time: secret keys for servers, and
/// publishable keys, each with a name, for apps and pages.
///
/// Each presented key is hashed with HMAC-SHA256 under a per-process random key and compared
/// with every configured key's hash, all of them, whatever the outcome: the time taken tells
/// nothing about which key, or how much of one, matched.
public struct APIKeys: Sendable {
    /// Who a request's key says it is.
    public struct Caller: Sendable, Equatable {
        /// A stable name for the key, the same in every process that has it: whose an idempotency
        /// key is, without carrying the API key itself.
        public var scope: String
        /// The publishable key's name, or `nil` for a secret key.
        public var publishableName: String?

        /// Whether the key is a publishable one, with the narrower rights of a key inside an app.
        public var isPublishable: Bool { publishableName != nil }
    }

    private let salt: [UInt8]
    /// `salt`, prepared once: every request's key is hashed under it.
    private let saltKey: HMACSHA256.Key
    private let hashes: [[UInt8]]
    private let callers: [Caller]

    /// Accepts these secret keys, and these publishable keys by name; empty keys are ignored.
    public init(_ keys: [String], publishable: [String: String] = [:]) {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        self.salt = salt
        self.saltKey = HMACSHA256.Key(salt)
        let secret = keys.filter { !$0.isEmpty }.map { ($0, nil as String?) }
        let named = publishable.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }.map {
            ($0.value, $0.key as String?)
        }
        let accepted = secret + named
        self.hashes = accepted.compactMap {
            HMACSHA256.authenticationCode(key: salt, message: Array($0.0.utf8))
        }
        self.callers = accepted.map { key, name in
            let digest = HMACSHA256.authenticationCode(
                key: Array("otp api key scope".utf8), message: Array(key.utf8))
            return Caller(scope: "k" + Hex.encode((digest ?? []).prefix(8)), publishableName: name)
        }
    }

    /// How many keys are accepted.
    public var count: Int { hashes.count }

    /// Whether an `Authorization` header value is `Bearer <one of the keys>`.
    public func accepts(authorization: String?) -> Bool {
        caller(authorization: authorization) != nil
    }

    /// The stable name of the key an `Authorization` header presents, or `nil` when it presents none
    /// of them: the scope that the caller's idempotency keys belong to.
    public func scope(authorization: String?) -> String? {
        caller(authorization: authorization)?.scope
    }

    /// Who the key an `Authorization` header presents belongs to, or `nil` when it presents none.
    public func caller(authorization: String?) -> Caller? {
        guard let authorization else { return nil }
        let bytes = authorization.utf8
        // "Bearer " in any case, then the key after any further spaces.
        guard bytes.count > 7,
            zip(bytes.prefix(7), "bearer ".utf8).allSatisfy({ byte, expected in
                byte == expected || (expected != UInt8(ascii: " ") && byte | 0x20 == expected)
            })
        else { return nil }
        let presented = bytes.dropFirst(7).drop { $0 == UInt8(ascii: " ") }
        let hash = saltKey.authenticationCode(Array(presented))
        var matched: Int?
        for (index, candidate) in hashes.enumerated() where HMACSHA256.constantTimeEqual(candidate, hash) {
            matched = index
        }
        return matched.map { callers[$0] }
    }

    /// Whether text is a usable publishable key name: 1–64 letters, digits, `.`, `_` or `-`.
    package static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                    || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
            }
    }

    /// Whether text is a usable publishable key: `pk_` and at least 20 more printable characters.
    package static func isValidPublishableKey(_ key: String) -> Bool {
        key.hasPrefix("pk_") && key.utf8.count >= 23 && key.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
