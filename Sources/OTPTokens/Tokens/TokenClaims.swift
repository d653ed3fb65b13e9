/// The claims as a token carries them: like `ApprovalClaims`, with `aud` a string or an array.
struct TokenClaims: Decodable {
    /// An `aud` claim: one audience or several (RFC 7519 section 4.1.3).
    enum Audience: Decodable {
        case one(String)
        case several([String])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let one = try? container.decode(String.self) {
                self = .one(one)
            } else {
                self = .several(try container.decode([String].self))
            }
        }

        /// Whether `audience` is the audience or one of them.
        func contains(_ audience: String) -> Bool {
            switch self {
            case .one(let one): one == audience
            case .several(let several): several.contains(audience)
            }
        }
    }

    var iss: String
    var sub: String
    var aud: Audience
    var iat: Int
    var exp: Int
    var jti: String
    var channel: String
    var phoneNumber: String?
    var phoneNumberVerified: Bool?
    var email: String?
    var emailVerified: Bool?
    var test: Bool?
    var ref: String?
    var nonce: String?
    var txn: TransactionClaim?

    private enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, exp, jti, channel, email, test, ref, nonce, txn
        case phoneNumber = "phone_number"
        case phoneNumberVerified = "phone_number_verified"
        case emailVerified = "email_verified"
    }
}
