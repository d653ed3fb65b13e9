import OTPEngine

/// The account and sender of a Twilio-compatible Messages API.
public struct TwilioConfiguration: Sendable, Equatable {
    /// The API's base URL, `https://api.twilio.com` unless another compatible provider is used.
    public var baseURL: String
    /// The account identifier, also the basic-auth user name.
    public var accountSID: String
    /// The account's auth token, the basic-auth password.
    public var authToken: String
    /// The sending phone number; either this or `messagingServiceSID` is set.
    public var from: String?
    /// The messaging service that picks the sending number.
    public var messagingServiceSID: String?
    /// How long one request may take, connection included.
    public var timeout: Duration

    /// Creates a configuration from its parts.
    public init(
        baseURL: String = "https://api.twilio.com", accountSID: String, authToken: String, from: String?,
        messagingServiceSID: String? = nil, timeout: Duration = .seconds(10)
    ) {
        self.baseURL = baseURL
        self.accountSID = accountSID
        self.authToken = authToken
        self.from = from
        self.messagingServiceSID = messagingServiceSID
        self.timeout = timeout
    }

    /// Reads `OTP_TWILIO_ACCOUNT_SID`, `OTP_TWILIO_AUTH_TOKEN`, `OTP_TWILIO_FROM` or
    /// `OTP_TWILIO_MESSAGING_SERVICE_SID`, and `OTP_TWILIO_BASE_URL`.
    public init(environment: [String: String]) throws(DeliveryError) {
        func value(_ name: String) -> String? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            return text
        }
        guard let sid = value("OTP_TWILIO_ACCOUNT_SID"), let token = value("OTP_TWILIO_AUTH_TOKEN") else {
            throw DeliveryError("the twilio sender needs OTP_TWILIO_ACCOUNT_SID and OTP_TWILIO_AUTH_TOKEN")
        }
        let from = value("OTP_TWILIO_FROM")
        let service = value("OTP_TWILIO_MESSAGING_SERVICE_SID")
        guard from != nil || service != nil else {
            throw DeliveryError("the twilio sender needs OTP_TWILIO_FROM or OTP_TWILIO_MESSAGING_SERVICE_SID")
        }
        let base = value("OTP_TWILIO_BASE_URL") ?? "https://api.twilio.com"
        let checked = try ProviderURL.secure(base, what: "OTP_TWILIO_BASE_URL")
        self.init(
            baseURL: checked, accountSID: sid, authToken: token, from: from, messagingServiceSID: service)
    }

    /// The Messages resource of the account.
    var messagesURL: String {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        return "\(base)/2010-04-01/Accounts/\(FormEncoding.escape(accountSID))/Messages.json"
    }
}
