/// What an approval token says: this verification was approved, for this site, for a short time.
public struct ApprovalClaims: Codable, Sendable, Equatable {
    /// The issuer: the OTPKit server's public URL.
    public var iss: String
    /// The subject: the verification's identifier.
    public var sub: String
    /// The audience: the origin of the return URL the token is handed to.
    public var aud: String
    /// When the token was issued, in seconds since 1970.
    public var iat: Int
    /// When the token expires, in seconds since 1970.
    public var exp: Int
    /// The token's unique identifier, for the app's backend to refuse a second use.
    public var jti: String
    /// The channel the code went through: `sms` or `email`.
    public var channel: String

    /// Makes claims from their values.
    public init(iss: String, sub: String, aud: String, iat: Int, exp: Int, jti: String, channel: String) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.iat = iat
        self.exp = exp
        self.jti = jti
        self.channel = channel
    }

    /// The claims as compact JSON with their members in sorted order.
    var jsonText: String {
        JSONText.object([
            ("aud", JSONText.string(aud)),
            ("channel", JSONText.string(channel)),
            ("exp", String(exp)),
            ("iat", String(iat)),
            ("iss", JSONText.string(iss)),
            ("jti", JSONText.string(jti)),
            ("sub", JSONText.string(sub)),
        ])
    }
}
