import Foundation
import OTPCore
import OTPEngine
import Testing

/// The deliverer that empties a store's event outbox, on a manual clock with a scripted endpoint.
@Suite struct EventDelivererTests {
    /// An endpoint that fails while told to and keeps what it took.
    final class Endpoint: @unchecked Sendable {
        private let lock = NSLock()
        private var failing = false
        private var taken: [LifecycleEvent] = []
        private var tries = 0

        func setFailing(_ value: Bool) { lock.withLock { failing = value } }
        var events: [LifecycleEvent] { lock.withLock { taken } }
        var attempts: Int { lock.withLock { tries } }

        func deliver(_ event: LifecycleEvent) -> Bool {
            lock.withLock {
                tries += 1
                if failing { return false }
                taken.append(event)
                return true
            }
        }
    }

    final class Outcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func add(_ event: LifecycleEvent, _ outcome: EventDeliverer.Outcome) {
            lock.withLock { list.append("\(event.kind.rawValue) \(outcome.rawValue)") }
        }
        var all: [String] { lock.withLock { list } }
    }

    static func setUp(
        settings: EventDeliverySettings = EventDeliverySettings(
            retryBase: .seconds(10), retryCap: .seconds(40))
    ) -> (Harness, MemoryStore, Endpoint, Outcomes, EventDeliverer) {
        let store = MemoryStore(recordsEvents: true)
        let harness = Harness(store: store)
        let endpoint = Endpoint()
        let outcomes = Outcomes()
        let clock = harness.clock
        let deliverer = EventDeliverer(
            store: store, settings: settings, deliver: { endpoint.deliver($0) }, now: { clock.date },
            jitter: { 0 }, report: { outcomes.add($0, $1) })
        return (harness, store, endpoint, outcomes, deliverer)
    }

    @Test("the retry delay doubles from the base to the cap; jitter takes off at most half")
    func retryDelays() {
        let settings = EventDeliverySettings(retryBase: .seconds(1), retryCap: .seconds(600))
        let full = (1...12).map { settings.retryDelay(afterFailures: $0, jitter: 0) }
        #expect(
            full == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 600, 600].map { Duration.seconds($0) })
        #expect(settings.retryDelay(afterFailures: 3, jitter: 1) == .seconds(2))
        #expect(settings.retryDelay(afterFailures: 3, jitter: 0.5) == .seconds(3))
        #expect(settings.retryDelay(afterFailures: 1000, jitter: 0) == .seconds(600))
        #expect(settings.retryDelay(afterFailures: 2, jitter: 7) == .seconds(1), "jitter is clamped to 0...1")
    }

    @Test("a failing endpoint is tried again only at the retry time, and gets each event once it answers")
    func retriesOnTheClock() async throws {
        let (harness, store, endpoint, outcomes, deliverer) = Self.setUp()
        endpoint.setFailing(true)
        _ = try await harness.started()
        #expect(try await deliverer.runOnce() == 1)
        #expect(try await deliverer.runOnce() == 0, "not before its retry time")
        harness.clock.advance(by: .seconds(9))
        #expect(try await deliverer.runOnce() == 0)
        harness.clock.advance(by: .seconds(1))
        #expect(try await deliverer.runOnce() == 1, "10 s after the first failure")
        harness.clock.advance(by: .seconds(19))
        #expect(try await deliverer.runOnce() == 0, "the second wait is 20 s")
        endpoint.setFailing(false)
        harness.clock.advance(by: .seconds(1))
        #expect(try await deliverer.runOnce() == 1)
        #expect(endpoint.events.map(\.kind) == [.pending])
        #expect(endpoint.attempts == 3)
        #expect(outcomes.all == ["pending failed", "pending failed", "pending delivered"])
        #expect(try await store.undeliveredEventCount() == 0)
    }

    @Test("an event still failing past the give-up age is dropped and counted, the next one goes on")
    func givesUp() async throws {
        let settings = EventDeliverySettings(
            retryBase: .seconds(60), retryCap: .seconds(60), giveUpAfter: .seconds(100))
        let (harness, store, endpoint, outcomes, deliverer) = Self.setUp(settings: settings)
        endpoint.setFailing(true)
        let (verification, _) = try await harness.started()
        _ = try await harness.verifier.cancel(id: verification.id)
        for _ in 0..<3 {
            try await deliverer.runOnce()
            harness.clock.advance(by: .seconds(60))
        }
        #expect(outcomes.all == ["pending failed", "pending failed", "pending dropped"])
        endpoint.setFailing(false)
        try await deliverer.runOnce()
        #expect(endpoint.events.map(\.kind) == [.canceled])
        #expect(try await store.undeliveredEventCount() == 0)
    }

    @Test("a round notes expiries itself: a code nobody checks is delivered expired")
    func expiry() async throws {
        let (harness, _, endpoint, _, deliverer) = Self.setUp()
        let (verification, _) = try await harness.started()
        try await deliverer.runOnce()
        harness.clock.advance(by: .seconds(300))
        try await deliverer.runOnce()
        #expect(endpoint.events.map(\.kind) == [.pending, .expired])
        #expect(endpoint.events.allSatisfy { $0.verificationID == verification.id })
    }

    @Test("a store that fails loses nothing: the round throws and the events wait")
    func storeFailure() async throws {
        let (harness, store, endpoint, _, deliverer) = Self.setUp()
        _ = try await harness.started()
        store.shutdown()
        await #expect(throws: StoreError.self) { try await deliverer.runOnce() }
        #expect(endpoint.attempts == 0)
    }
}
