/// The JSON body of every 4xx and 5xx answer: `{"error": {...}}`.
public struct APIErrorBody: Codable, Sendable, Equatable {
    /// The error itself.
    public var error: APIError

    /// Wraps an error for the wire.
    public init(error: APIError) {
        self.error = error
    }
}

/// One error of the HTTP API: a code to branch on and a sentence for people.
public struct APIError: Codable, Sendable, Equatable, Error {
    /// The machine-readable error code.
    public var code: OTPErrorCode
    /// A sentence for people, the screen's wording where UX.md has one.
    public var message: String
    /// Attempts left for the current code, set on check answers.
    public var attemptsLeft: Int?
    /// Seconds to wait before trying again, set on every 429.
    public var retryAfter: Int?
    /// Why, for the codes that say: `destination_not_allowed` (`region` or `number_type`) and
    /// `destination_blocked` (`pumping`); absent from the JSON otherwise.
    public var reason: String?

    /// Creates an error.
    public init(
        code: OTPErrorCode, message: String, attemptsLeft: Int? = nil, retryAfter: Int? = nil,
        reason: String? = nil
    ) {
        self.code = code
        self.message = message
        self.attemptsLeft = attemptsLeft
        self.retryAfter = retryAfter
        self.reason = reason
    }

    private enum CodingKeys: String, CodingKey {
        case code, message, attemptsLeft, retryAfter, reason
    }

    /// Encodes the error, writing absent numbers as `null` as the API shows them.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
        try container.encode(attemptsLeft, forKey: .attemptsLeft)
        try container.encode(retryAfter, forKey: .retryAfter)
        try container.encodeIfPresent(reason, forKey: .reason)
    }
}
