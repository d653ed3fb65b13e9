import OTPCore

/// What an approval token says: who was verified, for which sign-in and action, for which site,
/// for a short time.
///
/// The destination uses OpenID Connect's claim names: `phone_number` (E.164) with
/// `phone_number_verified`, or `email` with `email_verified`.
public struct ApprovalClaims: Sendable, Equatable {
    /// The issuer: the OTPKit server's public URL.
    public var iss: String
    /// The subject: the verification's identifier.
    public var sub: String
    /// The audience: the origin of the return URL, or the publishable key's name.
    public var aud: String
    /// When the token was issued, in seconds since 1970.
    public var iat: Int
    /// When the token expires, in seconds since 1970.
    public var exp: Int
    /// The token's unique identifier, for the app's backend to refuse a second use.
    public var jti: String
    /// The channel the code went through: `sms` or `email`.
    public var channel: String
    /// The verified phone number in E.164, for an SMS verification.
    public var phoneNumber: String?
    /// The verified email address, for an email verification.
    public var email: String?
    /// Whether the destination is one of the server's test destinations, whose code is fixed.
    public var test: Bool
    /// The start's `ref`: the app's own reference, such as its user or sign-in attempt id.
    public var ref: String?
    /// The hosted start's `nonce`, chosen by the backend for one sign-in.
    public var nonce: String?
    /// The transaction the code approved.
    public var txn: TransactionClaim?

    /// Makes claims from their values.
    public init(
        iss: String, sub: String, aud: String, iat: Int, exp: Int, jti: String, channel: String,
        phoneNumber: String? = nil, email: String? = nil, test: Bool = false, ref: String? = nil,
        nonce: String? = nil, txn: TransactionClaim? = nil
    ) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.iat = iat
        self.exp = exp
        self.jti = jti
        self.channel = channel
        self.phoneNumber = phoneNumber
        self.email = email
        self.test = test
        self.ref = ref
        self.nonce = nonce
        self.txn = txn
    }

    /// The claims as compact JSON with their members in sorted order; absent claims are left out.
    public var json: String { jsonText }

    var jsonText: String {
        var members: [(name: String, value: String)] = [
            ("aud", JSONText.string(aud)),
            ("channel", JSONText.string(channel)),
        ]
        if let email {
            members += [("email", JSONText.string(email)), ("email_verified", "true")]
        }
        members += [
            ("exp", String(exp)),
            ("iat", String(iat)),
            ("iss", JSONText.string(iss)),
            ("jti", JSONText.string(jti)),
        ]
        if let nonce { members.append(("nonce", JSONText.string(nonce))) }
        if let phoneNumber {
            members += [("phone_number", JSONText.string(phoneNumber)), ("phone_number_verified", "true")]
        }
        if let ref { members.append(("ref", JSONText.string(ref))) }
        members.append(("sub", JSONText.string(sub)))
        if test { members.append(("test", "true")) }
        if let txn { members.append(("txn", txn.jsonText)) }
        return JSONText.object(members)
    }
}

/// The `txn` claim: the approved transaction, and the SHA-256 of its canonical JSON.
public struct TransactionClaim: Sendable, Equatable, Decodable {
    /// The amount, a decimal string.
    public var amount: String
    /// The ISO 4217 currency code.
    public var currency: String
    /// Who is paid.
    public var payee: String
    /// The base64url SHA-256 of the transaction's canonical JSON (``TransactionDetails/canonicalJSON``),
    /// description included.
    public var hash: String

    /// Makes the claim for a transaction; `nil` when the crypto library failed.
    public init?(_ transaction: TransactionDetails) {
        guard let hash = Self.hash(of: transaction) else { return nil }
        self.init(
            amount: transaction.amount, currency: transaction.currency, payee: transaction.payee, hash: hash)
    }

    /// Makes the claim from its values.
    public init(amount: String, currency: String, payee: String, hash: String) {
        self.amount = amount
        self.currency = currency
        self.payee = payee
        self.hash = hash
    }

    /// The base64url SHA-256 of a transaction's canonical JSON, as `txn.hash` carries it.
    public static func hash(of transaction: TransactionDetails) -> String? {
        SHA256Hash.hash(Array(transaction.canonicalJSON.utf8)).map(Base64URL.encode)
    }

    var jsonText: String {
        JSONText.object([
            ("amount", JSONText.string(amount)),
            ("currency", JSONText.string(currency)),
            ("hash", JSONText.string(hash)),
            ("payee", JSONText.string(payee)),
        ])
    }
}
