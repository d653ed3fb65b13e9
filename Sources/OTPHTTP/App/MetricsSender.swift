import OTPCore
import OTPEngine

/// Counts every message handed to a sender by channel and result, then passes the outcome on.
struct MetricsSender: ImmediateCodeSender {
    let base: any CodeSender
    /// `base`, when it can deliver on the caller's thread (found once rather than per message).
    private let immediateBase: (any ImmediateCodeSender)?
    let metrics: ServerMetrics

    init(base: any CodeSender, metrics: ServerMetrics) {
        self.base = base
        immediateBase = base as? any ImmediateCodeSender
        self.metrics = metrics
    }

    func send(_ message: OutgoingMessage) async throws(DeliveryError) {
        do {
            try await base.send(message)
            counted(sent: message, succeeded: true)
        } catch {
            counted(sent: message, succeeded: false)
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
            throw error
        }
    }

    private func counted(sent message: OutgoingMessage, succeeded: Bool) {
        metrics.recordSend(channel: message.channel, succeeded: succeeded)
        if succeeded, message.channel == .sms { metrics.recordSMSSegments(SMSSegments.count(message.text)) }
    }
}
