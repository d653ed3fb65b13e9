import Foundation
import OTPCore
import OTPEngine
import Testing

@testable import OTPHTTP

/// The `fraud_blocked` event's retries: the outbox's schedule, the give-up time, the bound on
/// events waiting, and one metric count per event.
@Suite struct BlockEventPosterTests {
    /// A block's event, as the guard's report makes it.
    static func event(_ number: String = "+447500123450") -> LifecycleEvent {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let subject = FraudSubject(e164: number, region: "GB")
        let until = start.addingTimeInterval(43_200)
        return LifecycleEvent.fraudBlocked(
            FraudDecision(
                action: .block, level: .prefix, mode: .on, subject: subject,
                block: FraudBlockState(
                    key: FraudKey.prefix(subject), until: until, repeats: 1, forgetAt: until, created: true),
                judgement: nil, at: start))
    }

    /// An endpoint that refuses as many posts as it is told to, then takes every one.
    final class Endpoint: Sendable {
        private struct State {
            var failures: Int
            var tries = 0
        }

        private let state: Locked<State>

        init(failing failures: Int) {
            state = Locked(State(failures: failures))
        }

        var count: Int { state.withLock { $0.tries } }

        func fail(next failures: Int) {
            state.withLock { $0.failures = failures }
        }

        func deliver(_ event: LifecycleEvent) -> Bool {
            state.withLock { state in
                state.tries += 1
                guard state.failures > 0 else { return true }
                state.failures -= 1
                return false
            }
        }
    }

    static func lines() -> (RequestLog, Locked<[String]>) {
        let lines = Locked<[String]>([])
        return (RequestLog(now: { Date() }, write: { line in lines.withLock { $0.append(line) } }), lines)
    }

    @Test(
        "a failed post is tried again after 1, 2 and 4 s, as the outbox retries, until the endpoint takes it")
    func retriesOnTheOutboxSchedule() async {
        let endpoint = Endpoint(failing: 3)
        let waits = Locked<[Duration]>([])
        let metrics = ServerMetrics()
        let (log, lines) = Self.lines()
        let poster = FraudReport.BlockEventPoster(
            events: EventsConfiguration { endpoint.deliver($0) }, metrics: metrics, log: log,
            sleep: { wait in waits.withLock { $0.append(wait) } }, jitter: { 0 })
        let taken = await poster.deliver(Self.event())
        #expect(taken)
        #expect(endpoint.count == 4)
        #expect(waits.withLock { $0 } == [.seconds(1), .seconds(2), .seconds(4)])
        let text = metrics.prometheusText()
        #expect(text.contains(#"otp_events_total{type="fraud_blocked",result="delivered"} 1"#))
        #expect(!text.contains(#"result="dropped""#))
        #expect(lines.withLock { $0 }.isEmpty)
    }

    @Test("an event is dropped, counted and logged once the next wait would pass the give-up time")
    func givesUp() async {
        let endpoint = Endpoint(failing: .max)
        let waits = Locked<[Duration]>([])
        let metrics = ServerMetrics()
        let (log, lines) = Self.lines()
        // Waits of 1, 2 and 4 s: after 1 + 2, the next would end at 7 s, past 5 s.
        let settings = EventDeliverySettings(retryBase: .seconds(1), giveUpAfter: .seconds(5))
        let poster = FraudReport.BlockEventPoster(
            events: EventsConfiguration(settings: settings) { endpoint.deliver($0) }, metrics: metrics,
            log: log,
            sleep: { wait in waits.withLock { $0.append(wait) } }, jitter: { 0 })
        let taken = await poster.deliver(Self.event())
        #expect(!taken)
        #expect(endpoint.count == 3)
        #expect(waits.withLock { $0 } == [.seconds(1), .seconds(2)])
        #expect(
            metrics.prometheusText().contains(#"otp_events_total{type="fraud_blocked",result="dropped"} 1"#))
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        #expect(written.first?.contains(#""event":"fraud_event_dropped""#) == true)
        #expect(written.first?.contains(#""id":"evt_fraud.prefix.+447500.1""#) == true)
        #expect(written.first?.contains("447500123450") == false, "never a whole number")
    }

    @Test("a canceled wait drops the event")
    func canceledWait() async {
        let endpoint = Endpoint(failing: .max)
        let metrics = ServerMetrics()
        let (log, _) = Self.lines()
        let poster = FraudReport.BlockEventPoster(
            events: EventsConfiguration { endpoint.deliver($0) }, metrics: metrics, log: log,
            sleep: { _ in throw CancellationError() }, jitter: { 0 })
        #expect(await poster.deliver(Self.event()) == false)
        #expect(endpoint.count == 1)
        #expect(
            metrics.prometheusText().contains(#"otp_events_total{type="fraud_blocked",result="dropped"} 1"#))
    }

    @Test("past the bound of events waiting, a failed post is dropped at once; those waiting still go out")
    func boundsTheWaiting() async throws {
        let clock = ManualClock()
        let endpoint = Endpoint(failing: FraudReport.BlockEventPoster.limit + 1)
        let metrics = ServerMetrics()
        let (log, _) = Self.lines()
        let poster = FraudReport.BlockEventPoster(
            events: EventsConfiguration { endpoint.deliver($0) }, metrics: metrics, log: log,
            sleep: { try await clock.sleep(for: $0) }, jitter: { 0 })
        let limit = FraudReport.BlockEventPoster.limit
        let waiting = (0..<limit).map { _ in Task { await poster.deliver(Self.event()) } }
        while clock.sleeperCount < limit { await Task.yield() }
        // Every place is held: this one fails and does not wait.
        #expect(await poster.deliver(Self.event()) == false)
        #expect(endpoint.count == limit + 1)
        clock.advance(by: .seconds(1))
        for task in waiting { #expect(await task.value) }
        let text = metrics.prometheusText()
        #expect(text.contains(#"otp_events_total{type="fraud_blocked",result="delivered"} \#(limit)"#))
        #expect(text.contains(#"otp_events_total{type="fraud_blocked",result="dropped"} 1"#))
        // The places are free again: a failing post waits once more.
        endpoint.fail(next: 1)
        let retry = Task { await poster.deliver(Self.event()) }
        while clock.sleeperCount < 1 { await Task.yield() }
        clock.advance(by: .seconds(1))
        #expect(await retry.value)
    }

    @Test(
        "a stopped poster drops the events waiting for a retry, returns once they end, and posts nothing more"
    )
    func stops() async throws {
        let clock = ManualClock()
        let endpoint = Endpoint(failing: .max)
        let metrics = ServerMetrics()
        let (log, _) = Self.lines()
        let poster = FraudReport.BlockEventPoster(
            events: EventsConfiguration { endpoint.deliver($0) }, metrics: metrics, log: log,
            sleep: { try await clock.sleep(for: $0) }, jitter: { 0 })
        poster.post(Self.event())
        poster.post(Self.event("+447600123450"))
        for _ in 0..<100_000 where clock.sleeperCount < 2 { await Task.yield() }
        try #require(clock.sleeperCount == 2)
        #expect(poster.underWay == 2)
        await poster.stop(grace: .seconds(1))
        #expect(poster.underWay == 0)
        #expect(endpoint.count == 2)
        #expect(
            metrics.prometheusText().contains(#"otp_events_total{type="fraud_blocked",result="dropped"} 2"#))
        poster.post(Self.event())
        #expect(poster.underWay == 0)
        #expect(endpoint.count == 2, "nothing is posted once stopped")
    }
}
