import OTPCore

/// A request to start a verification, as the HTTP front hands it over.
public struct StartRequest: Sendable, Equatable {
    /// The destination as the client sent it: a phone number or an email address.
    public var to: String
    /// The channel, or `nil` to infer it (`@` means email).
    public var channel: Channel?
    /// The client's address (the socket's peer, or the first forwarded address behind a trusted proxy).
    public var clientAddress: String
    /// The `Idempotency-Key` header, if any: 1–255 printable ASCII characters.
    public var idempotencyKey: String?
    /// The name of the publishable key that starts it, or `nil` for a secret key: the verification's
    /// identifier then carries a tag of that name, and the stricter per-address limit of
    /// ``Policy/ownerStartsPerAddress`` applies.
    public var owner: String?
    /// The language of the verification's messages, or `nil` for the number's region's language
    /// (``RegionLanguages``), else the policy's default.
    public var locale: TextLanguage?
    /// The ISO 3166 alpha-2 region a national phone number is read in (`US` for `(201) 555-0123`),
    /// or `nil`; a number in international form keeps its own region whatever this says.
    public var country: String?
    /// Whose idempotency key it is, such as a name for the caller's API key: the same key under
    /// another scope is another key, so one caller can neither replay nor block another's starts.
    public var idempotencyScope: String
    /// The caller's opaque reference (such as its user or sign-in attempt id), echoed in the
    /// verification, its events and its approval token; at most ``maxRefCharacters`` characters.
    public var ref: String?
    /// The transaction the code approves, or `nil`; the code's hash covers it.
    public var transaction: TransactionDetails?
    /// Who the start is for, as the backend that calls with a secret key saw them, or `nil`.
    ///
    /// A backend starts for many users from its own address, so the limits per address would see
    /// only the backend. The HTTP front puts ``EndUser/ip`` in ``clientAddress``; a
    /// ``EndUser/deviceId`` adds a limit per device, of ``Policy/startsPerAddress``.
    public var endUser: EndUser?

    /// The most characters a ``ref`` may have.
    public static let maxRefCharacters = 128

    /// Creates a request.
    public init(
        to: String, channel: Channel? = nil, clientAddress: String, idempotencyKey: String? = nil,
        idempotencyScope: String = "", owner: String? = nil, locale: TextLanguage? = nil, ref: String? = nil,
        transaction: TransactionDetails? = nil, country: String? = nil, endUser: EndUser? = nil
    ) {
        self.endUser = endUser
        self.country = country
        self.ref = ref
        self.transaction = transaction
        self.locale = locale
        self.owner = owner
        self.to = to
        self.channel = channel
        self.clientAddress = clientAddress
        self.idempotencyKey = idempotencyKey
        self.idempotencyScope = idempotencyScope
    }

    /// The key as the store keeps it: the scope, a separator no header can hold, and the client's key.
    var scopedIdempotencyKey: String? {
        idempotencyKey.map { idempotencyScope.isEmpty ? $0 : "\(idempotencyScope)\u{1F}\($0)" }
    }

    /// What identifies the body for idempotency: the fields as JSON values, not bytes.
    var fingerprint: String {
        "\(to)\u{0}\(channel?.rawValue ?? "")\u{0}\(ref ?? "")\u{0}\(transaction?.canonicalJSON ?? "")"
            + (country.map { "\u{0}\($0)" } ?? "")
    }
}

/// The user a start is for, as a backend saw them: their address, their device, their account.
public struct EndUser: Sendable, Equatable {
    /// The user's IP address (v4 or v6), or `nil`.
    public var ip: String?
    /// An identifier of the user's device, opaque to the server, or `nil`.
    public var deviceId: String?
    /// The backend's identifier of the user, opaque to the server, or `nil`.
    public var userId: String?

    /// The most characters ``deviceId`` and ``userId`` may have.
    public static let maxIdentifierCharacters = 128

    /// Creates an end user.
    public init(ip: String? = nil, deviceId: String? = nil, userId: String? = nil) {
        self.ip = ip
        self.deviceId = deviceId
        self.userId = userId
    }
}

/// The answer to a start.
public struct StartResult: Sendable, Equatable {
    /// The verification.
    public var verification: Verification
    /// `true` when this call created it (HTTP 201); `false` for an idempotent replay (HTTP 200).
    public var created: Bool

    /// Creates a result.
    public init(verification: Verification, created: Bool) {
        self.verification = verification
        self.created = created
    }
}
