import OTPServer

/// Counts every message handed to a sender by channel and result, then passes the outcome on.
struct MetricsSender: CodeSender {
    let base: any CodeSender
    let metrics: ServerMetrics

    func send(_ message: OutgoingMessage) async throws(DeliveryError) {
        do {
            try await base.send(message)
            metrics.recordSend(channel: message.channel, succeeded: true)
        } catch {
            metrics.recordSend(channel: message.channel, succeeded: false)
            throw error
        }
    }
}
