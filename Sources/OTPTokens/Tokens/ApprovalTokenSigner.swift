/// Signs approval tokens: compact JWS (RFC 7515) with `alg` `EdDSA` over Ed25519 (RFC 8037).
public struct ApprovalTokenSigner: Sendable {
    private let keys: [Ed25519SigningKey]

    /// Makes a signer that signs with the first of `keys` and publishes all of them.
    ///
    /// List the new key first and keep old ones until their tokens have expired. `keys` must not
    /// be empty; an empty list stops the program.
    public init(keys: [Ed25519SigningKey]) {
        precondition(!keys.isEmpty, "an approval token signer needs at least one key")
        self.keys = keys
    }

    /// The compact token for `claims`, signed by the first key and naming it in the header's `kid`.
    public func token(for claims: ApprovalClaims) -> String {
        let key = keys[0]
        let header = JSONText.object([
            ("alg", JSONText.string(JSONWebKey.edDSAAlgorithm)),
            ("kid", JSONText.string(key.keyID)),
            ("typ", JSONText.string("JWT")),
        ])
        let signingInput =
            Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.jsonText.utf8))
        return signingInput + "." + Base64URL.encode(key.sign(Array(signingInput.utf8)))
    }

    /// The public keys to publish, once each, in the signer's order.
    public var keySet: JSONWebKeySet {
        var seen: Set<String> = []
        return JSONWebKeySet(keys: keys.filter { seen.insert($0.keyID).inserted }.map(\.jwk))
    }
}
