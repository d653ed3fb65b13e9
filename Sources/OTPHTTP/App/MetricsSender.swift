import OTPCore
import OTPServer

/// Counts every message handed to a sender by channel and result, then passes the outcome on.
///
/// A message to a test destination is not sent at all: it is counted with the result `test`.
struct MetricsSender: ImmediateCodeSender {
    let base: any CodeSender
    /// `base`, when it can deliver on the caller's thread (found once rather than per message).
    private let immediateBase: (any ImmediateCodeSender)?
    let metrics: ServerMetrics
    let testDestinations: Set<String>

    init(base: any CodeSender, metrics: ServerMetrics, testDestinations: Set<String> = []) {
        self.base = base
        immediateBase = base as? any ImmediateCodeSender
        self.metrics = metrics
        self.testDestinations = testDestinations
    }

    func send(_ message: OutgoingMessage) async throws(DeliveryError) {
        if counted(test: message) { return }
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
        if counted(test: message) { return }
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

    /// Counts a message to a test destination, which is not sent; `false` for any other.
    private func counted(test message: OutgoingMessage) -> Bool {
        guard testDestinations.contains(message.to.lowercased()) else { return false }
        metrics.recordSend(channel: message.channel, result: "test")
        return true
    }

    private func counted(sent message: OutgoingMessage, succeeded: Bool) {
        metrics.recordSend(channel: message.channel, succeeded: succeeded)
        if succeeded, message.channel == .sms { metrics.recordSMSSegments(SMSSegments.count(message.text)) }
    }
}
