import Foundation
import OTPCore
import OTPEngine
import Testing

@testable import OTPDelivery

/// Defects found in delivery, each held down by a focused test; scripts/test.sh runs this suite on
/// its own (its transfers would take the process-wide bound from other delivery tests).
@Suite(.serialized) struct ReliabilityRegressionTests {
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
            for _ in 0..<(CurlTransfer.Pool.delivery.maximumInFlight + extra) {
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
        #expect(CurlTransfer.Pool.delivery.inFlight.withLock { $0 } == 0)
    }

    /// Found by the security review: guard calls, deliveries and events shared one pool, so a flood
    /// of starts against a slow guard made an unrelated start's delivery fail at once.
    @Test("a start guard that hangs uses up only the guards' transfers; a code is still delivered")
    func separatePools() async throws {
        let hanging = try await Receiver.start("http", ["--hang"])
        defer { hanging.stop() }
        let fast = try await Receiver.start("http", ["--status", "204"])
        defer { fast.stop() }
        let slowGuard = try WebhookStartGuard(
            url: "http://127.0.0.1:\(hanging.port)/guard", secret: Array("g".utf8), timeout: .seconds(3))
        let sender = try WebhookSender(
            url: "http://127.0.0.1:\(fast.port)/hook", secret: Array("s".utf8), timeout: .seconds(3))
        let start = GuardedStart(
            channel: .sms, callingCode: "1", to: "+1 ••• 0100", clientAddress: "203.0.113.9", keyName: "ios",
            proof: nil)
        let message = OutgoingMessage(
            verificationID: "vf_other", channel: .sms, to: "+15555550100", subject: "", text: "code",
            html: nil)
        let guards = CurlTransfer.Pool.startGuard.maximumInFlight
        async let verdicts: [StartGuardVerdict] = withTaskGroup(of: StartGuardVerdict.self) { group in
            for _ in 0..<(guards + 1) { group.addTask { await slowGuard.judge(start) } }
            var all: [StartGuardVerdict] = []
            for await verdict in group { all.append(verdict) }
            return all
        }
        // Wait until the guards' pool is full, then deliver a code while it stays full.
        for _ in 0..<200 where CurlTransfer.Pool.startGuard.inFlight.withLock({ $0 }) < guards {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(CurlTransfer.Pool.startGuard.inFlight.withLock { $0 } == guards)
        try await sender.send(message)
        let all = await verdicts
        #expect(
            all.filter {
                if case .unavailable(let why) = $0 { why.contains("already in flight") } else { false }
            }.count == 1)
        #expect(CurlTransfer.Pool.startGuard.inFlight.withLock { $0 } == 0)
    }
}
