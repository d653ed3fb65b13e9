import OTPCore

/// One message carrying a code, ready for a channel's provider.
///
/// It holds the full destination and the code inside its text, so it must never be logged.
public struct OutgoingMessage: Sendable, Equatable {
    /// The verification the code belongs to.
    public var verificationID: String
    /// SMS or email.
    public var channel: Channel
    /// The full destination: an E.164 phone number or an email address.
    public var to: String
    /// The subject line, for email.
    public var subject: String
    /// The plain-text body; for SMS the whole message.
    public var text: String
    /// The HTML body, for email.
    public var html: String?

    /// Creates a message.
    public init(
        verificationID: String, channel: Channel, to: String, subject: String, text: String, html: String?
    ) {
        self.verificationID = verificationID
        self.channel = channel
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
    }
}

/// Why a message could not be delivered; the server answers 502 `delivery_failed`.
public struct DeliveryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, without the destination or the code.
    public var reason: String
    /// The HTTP status the provider answered, when it answered.
    public var status: Int?
    /// The provider's own error code from its answer (Twilio's `code`), when it gave one.
    public var providerCode: String?

    /// Creates a delivery error.
    public init(_ reason: String, status: Int? = nil, providerCode: String? = nil) {
        self.reason = reason
        self.status = status
        self.providerCode = providerCode
    }

    /// What went wrong.
    public var description: String { reason }
}

/// What a sender knows of a message its provider took.
public struct DeliveryReceipt: Sendable, Equatable {
    /// The provider's id for the message (Twilio's message SID), when the provider gave one.
    public var messageID: String?

    /// Creates a receipt.
    public init(messageID: String? = nil) {
        self.messageID = messageID
    }
}

/// Delivers codes: a console for development, an outbox file, SMTP, a webhook, an SMS provider.
public protocol CodeSender: Sendable {
    /// Delivers one message, or throws when the provider refused it or could not be reached.
    func send(_ message: OutgoingMessage) async throws(DeliveryError)

    /// Delivers one message as ``send(_:)`` does and answers what the provider said of it.
    ///
    /// The engine calls this one. By default it calls ``send(_:)`` and answers an empty receipt;
    /// a sender whose provider names its messages implements it to return that name.
    func sendWithReceipt(_ message: OutgoingMessage) async throws(DeliveryError) -> DeliveryReceipt
}

extension CodeSender {
    /// Calls ``send(_:)`` and answers a receipt without a message id.
    public func sendWithReceipt(_ message: OutgoingMessage) async throws(DeliveryError) -> DeliveryReceipt {
        try await send(message)
        return DeliveryReceipt()
    }
}

/// A sender that can deliver on the caller's thread, without suspending: a write to a file or a
/// terminal, not a request to a provider.
///
/// The server's HTTP threads use it, with a store that answers inline (``MemoryStore``), to
/// answer a start where the request arrived. ``sendImmediately(_:)`` means exactly what ``CodeSender/send(_:)`` means.
public protocol ImmediateCodeSender: CodeSender {
    /// Whether messages of `channel` go out on the caller's thread; when `false`,
    /// ``sendImmediately(_:)`` is not called for them and ``CodeSender/send(_:)`` is.
    func sendsImmediately(_ channel: Channel) -> Bool

    /// ``CodeSender/send(_:)``, on the caller's thread.
    func sendImmediately(_ message: OutgoingMessage) throws(DeliveryError)
}
