/// An Ed25519 private key that signs approval tokens, made from its 32-byte seed (RFC 8032).
///
/// Its descriptions, debug descriptions and mirror show the key ID and never the seed.
public struct Ed25519SigningKey: Sendable {
    /// The private key's seed; never leaves this value.
    private let seed: [UInt8]

    /// The 32-byte public key.
    public let publicKey: [UInt8]

    /// The RFC 7638 JWK thumbprint of the public key: the `kid` of the key and of its tokens.
    public let keyID: String

    /// Makes the key whose private key is `seed`, which must be exactly 32 bytes.
    public init(seed: [UInt8]) throws(TokenKeyError) {
        guard seed.count == Ed25519.seedByteCount else {
            throw TokenKeyError(
                "an Ed25519 seed must be exactly \(Ed25519.seedByteCount) bytes; this one has \(seed.count)")
        }
        guard let publicKey = Ed25519.publicKey(seed: seed) else {
            throw TokenKeyError("the crypto library could not derive the Ed25519 public key")
        }
        guard let keyID = Self.thumbprint(publicKey: publicKey) else {
            throw TokenKeyError("the crypto library could not hash the Ed25519 public key")
        }
        self.seed = seed
        self.publicKey = publicKey
        self.keyID = keyID
    }

    /// The 64-byte Ed25519 signature of `message`.
    ///
    /// Stops the program if the crypto library fails, which it does only when out of memory: the
    /// key was checked when it was made.
    public func sign(_ message: [UInt8]) -> [UInt8] {
        guard let signature = Ed25519.signature(of: message, seed: seed) else {
            preconditionFailure("the crypto library could not make an Ed25519 signature")
        }
        return signature
    }

    /// The public key as a JWK (RFC 8037), with its `kid`, `alg` `EdDSA` and `use` `sig`.
    public var jwk: JSONWebKey {
        JSONWebKey(
            kty: JSONWebKey.octetKeyPairType, crv: JSONWebKey.ed25519Curve, x: Base64URL.encode(publicKey),
            kid: keyID, alg: JSONWebKey.edDSAAlgorithm, use: JSONWebKey.signatureUse)
    }

    /// The RFC 7638 thumbprint of an Ed25519 public key: base64url of the SHA-256 of its required members.
    static func thumbprint(publicKey: [UInt8]) -> String? {
        let members = JSONText.object([
            ("crv", JSONText.string(JSONWebKey.ed25519Curve)),
            ("kty", JSONText.string(JSONWebKey.octetKeyPairType)),
            ("x", JSONText.string(Base64URL.encode(publicKey))),
        ])
        return SHA256Hash.hash(Array(members.utf8)).map(Base64URL.encode)
    }
}

extension Ed25519SigningKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The key's ID; never the seed.
    public var description: String { "Ed25519SigningKey(keyID: \(keyID))" }

    /// The key's ID; never the seed.
    public var debugDescription: String { description }

    /// A mirror with the key ID and the public key; never the seed.
    public var customMirror: Mirror {
        Mirror(self, children: ["keyID": keyID, "publicKey": Base64URL.encode(publicKey)])
    }
}
