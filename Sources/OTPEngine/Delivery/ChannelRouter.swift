import OTPCore

/// Sends each message through the sender configured for its channel.
///
/// `otp serve --sender smtp://… --sender twilio` routes email to SMTP and SMS to Twilio; the
/// channels a server offers are those that have a sender.
public struct ChannelRouter: ImmediateCodeSender {
    /// The sender for each channel.
    public let routes: [Channel: any CodeSender]
    /// The routes whose senders can deliver on the caller's thread, found once rather than per message.
    private let immediateRoutes: [Channel: any ImmediateCodeSender]

    /// Creates a router over one sender per channel.
    public init(routes: [Channel: any CodeSender]) {
        self.routes = routes
        immediateRoutes = routes.compactMapValues { $0 as? any ImmediateCodeSender }
    }

    /// The channels that have a sender.
    public var channels: Set<Channel> { Set(routes.keys) }

    /// Delivers through the channel's sender, or throws when the channel has none.
    public func send(_ message: OutgoingMessage) async throws(DeliveryError) {
        guard let sender = routes[message.channel] else {
            throw DeliveryError("no sender is configured for \(message.channel.rawValue)")
        }
        try await sender.send(message)
    }

    /// Delivers through the channel's sender and answers its receipt.
    public func sendWithReceipt(_ message: OutgoingMessage) async throws(DeliveryError) -> DeliveryReceipt {
        guard let sender = routes[message.channel] else {
            throw DeliveryError("no sender is configured for \(message.channel.rawValue)")
        }
        return try await sender.sendWithReceipt(message)
    }

    /// Whether the channel's sender delivers on the caller's thread.
    public func sendsImmediately(_ channel: Channel) -> Bool {
        immediateRoutes[channel]?.sendsImmediately(channel) ?? false
    }

    /// Hands the message to its channel's sender, on the caller's thread.
    public func sendImmediately(_ message: OutgoingMessage) throws(DeliveryError) {
        guard let sender = immediateRoutes[message.channel] else {
            throw DeliveryError("no sender is configured for \(message.channel.rawValue) on this thread")
        }
        try sender.sendImmediately(message)
    }
}
