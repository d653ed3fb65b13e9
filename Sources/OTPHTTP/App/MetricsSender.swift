import OTPServer

/// Counts every message handed to a sender by channel and result, then passes the outcome on.
///
/// A message to a test destination is not sent at all: it is counted with the result `test`.
struct MetricsSender: CodeSender {
    let base: any CodeSender
    let metrics: ServerMetrics
    var testDestinations: Set<String> = []

    func send(_ message: OutgoingMessage) async throws(DeliveryError) {
        if testDestinations.contains(message.to.lowercased()) {
            metrics.recordSend(channel: message.channel, result: "test")
            return
        }
        do {
            try await base.send(message)
            metrics.recordSend(channel: message.channel, succeeded: true)
            if message.channel == .sms { metrics.recordSMSSegments(SMSSegments.count(message.text)) }
        } catch {
            metrics.recordSend(channel: message.channel, succeeded: false)
            throw error
        }
    }
}
