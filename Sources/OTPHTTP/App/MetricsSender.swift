import OTPCore
import OTPEngine

/// Counts every message handed to a sender by channel and result, then passes the outcome on.
struct MetricsSender: ImmediateCodeSender {
    let base: any CodeSender
    /// `base`, when it can deliver on the caller's thread (found once rather than per message).
    private let immediateBase: (any ImmediateCodeSender)?
    let metrics: ServerMetrics
    /// Where each failed send is logged, with its cause.
    let log: RequestLog
    /// How the log line masks the destination.
    let masking: DestinationMasking

    init(
        base: any CodeSender, metrics: ServerMetrics, log: RequestLog = .silent,
        masking: DestinationMasking = .plain
    ) {
        self.base = base
        immediateBase = base as? any ImmediateCodeSender
        self.metrics = metrics
        self.log = log
        self.masking = masking
    }

    func send(_ message: OutgoingMessage) async throws(DeliveryError) {
        _ = try await sendWithReceipt(message)
    }

    /// Sends through `base`, counts the outcome, and passes `base`'s receipt on.
    func sendWithReceipt(_ message: OutgoingMessage) async throws(DeliveryError) -> DeliveryReceipt {
        do {
            let receipt = try await base.sendWithReceipt(message)
            counted(sent: message, succeeded: true)
            return receipt
        } catch {
            counted(sent: message, succeeded: false)
            logFailure(message, error)
            throw error
        }
    }

    func sendsImmediately(_ channel: Channel) -> Bool {
        immediateBase?.sendsImmediately(channel) ?? false
    }

    func sendImmediately(_ message: OutgoingMessage) throws(DeliveryError) {
        guard let base = immediateBase else {
            throw DeliveryError("the sender does not deliver on this thread")
        }
        do {
            try base.sendImmediately(message)
            counted(sent: message, succeeded: true)
        } catch {
            counted(sent: message, succeeded: false)
            logFailure(message, error)
            throw error
        }
    }

    /// Logs a failed send: the channel, the masked destination, the verification, the provider's
    /// status and error code, and the sender's reason; never the code or the whole destination.
    func logFailure(_ message: OutgoingMessage, _ error: DeliveryError) {
        var fields = [
            ("channel", message.channel.rawValue),
            ("to", masking.mask(channel: message.channel, address: message.to)),
            ("verification", message.verificationID),
        ]
        if let status = error.status { fields.append(("providerStatus", String(status))) }
        if let code = error.providerCode { fields.append(("providerCode", code)) }
        fields.append(("error", error.reason))
        log.log(.warning, "a code could not be sent", fields: fields)
    }

    private func counted(sent message: OutgoingMessage, succeeded: Bool) {
        metrics.recordSend(channel: message.channel, succeeded: succeeded)
        if succeeded, message.channel == .sms { metrics.recordSMSSegments(SMSSegments.count(message.text)) }
    }
}
