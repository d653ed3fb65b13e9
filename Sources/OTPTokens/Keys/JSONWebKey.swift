/// A public key as a JSON Web Key (RFC 7517); OTPKit's are Ed25519 octet key pairs (RFC 8037).
///
/// Only `kty`, `crv` and `x` are required when decoding; other members are ignored. A verifier
/// uses a key only when it is `OKP`, `Ed25519`, 32 bytes, has a `kid`, and any `alg` and `use` it
/// gives are `EdDSA` and `sig`.
public struct JSONWebKey: Codable, Sendable, Equatable {
    /// The key type: `OKP` for Ed25519.
    public var kty: String
    /// The curve: `Ed25519`.
    public var crv: String
    /// The public key, base64url without padding.
    public var x: String
    /// The key ID that tokens name in their header; OTPKit uses the RFC 7638 thumbprint.
    public var kid: String?
    /// The algorithm the key is for: `EdDSA`.
    public var alg: String?
    /// What the key is for: `sig`.
    public var use: String?

    /// Makes a key from its members.
    public init(
        kty: String, crv: String, x: String, kid: String? = nil, alg: String? = nil, use: String? = nil
    ) {
        self.kty = kty
        self.crv = crv
        self.x = x
        self.kid = kid
        self.alg = alg
        self.use = use
    }

    static let octetKeyPairType = "OKP"
    static let ed25519Curve = "Ed25519"
    static let edDSAAlgorithm = "EdDSA"
    static let signatureUse = "sig"

    /// The 32-byte Ed25519 public key, when this JWK is one a verifier may use; otherwise `nil`.
    var usableEd25519PublicKey: [UInt8]? {
        guard kty == Self.octetKeyPairType, crv == Self.ed25519Curve, kid != nil,
            alg == nil || alg == Self.edDSAAlgorithm, use == nil || use == Self.signatureUse,
            let bytes = Base64URL.decode(x), bytes.count == Ed25519.publicKeyByteCount
        else { return nil }
        return bytes
    }

    /// The key as compact JSON with its members in sorted order.
    var jsonText: String {
        var members: [(name: String, value: String)] = []
        if let alg { members.append(("alg", JSONText.string(alg))) }
        members.append(("crv", JSONText.string(crv)))
        if let kid { members.append(("kid", JSONText.string(kid))) }
        members.append(("kty", JSONText.string(kty)))
        if let use { members.append(("use", JSONText.string(use))) }
        members.append(("x", JSONText.string(x)))
        return JSONText.object(members)
    }
}
