import Foundation
import OTPCore
import OTPServer
import Testing

@testable import OTPDelivery

/// Defects found in delivery, each held down by a focused test; scripts/test.sh runs this suite on
/// its own (its transfers would take the process-wide bound from other delivery tests).
@Suite struct ReliabilityRegressionTests {
    /// Found by the security review: one thread per delivery, so a hanging provider and a burst of
    /// starts made thousands of threads.
    @Test("past the bound of transfers in flight a delivery fails at once instead of starting a thread")
    func boundedDeliveries() async throws {
        let endpoint = try await Receiver.start("http", ["--hang"])
        defer { endpoint.stop() }
        let sender = try WebhookSender(
            url: "http://127.0.0.1:\(endpoint.port)/hook", secret: Array("s".utf8), timeout: .seconds(3))
        let message = OutgoingMessage(
            verificationID: "vf_burst", channel: .sms, to: "+15555550100", subject: "", text: "code",
            html: nil)
        let extra = 10
        let outcomes = await withTaskGroup(of: (String?, Duration).self) { group in
            for _ in 0..<(CurlTransfer.maximumInFlight + extra) {
                group.addTask {
                    let clock = ContinuousClock()
                    let began = clock.now
                    do {
                        try await sender.send(message)
                        return (nil, clock.now - began)
                    } catch {
                        return ((error as? DeliveryError)?.reason ?? "\(error)", clock.now - began)
                    }
                }
            }
            var all: [(String?, Duration)] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        let refused = outcomes.filter { $0.0?.contains("already in flight") == true }
        #expect(refused.count == extra)
        #expect(refused.allSatisfy { $0.1 < .seconds(2) }, "a refusal waited for a thread")
        #expect(outcomes.allSatisfy { $0.0 != nil }, "a hanging endpoint took a message")
        #expect(CurlTransfer.inFlight.withLock { $0 } == 0)
    }
}
