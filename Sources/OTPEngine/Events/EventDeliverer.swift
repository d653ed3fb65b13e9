import Foundation

/// How the ``EventDeliverer`` paces itself and retries.
public struct EventDeliverySettings: Sendable, Equatable {
    /// The wait before the first retry; each later one doubles it, up to ``retryCap``.
    public var retryBase: Duration
    /// The longest wait between two tries.
    public var retryCap: Duration
    /// How long after it happened an event is still tried; then it is dropped and counted.
    public var giveUpAfter: Duration
    /// How long a claimed event is held by this deliverer before another may take it.
    public var lease: Duration
    /// The pause between rounds that found nothing to deliver.
    public var idlePause: Duration
    /// Events claimed per round (one per verification), delivered side by side.
    public var batch: Int
    /// How long one delivery may take before it counts as failed.
    public var timeout: Duration

    /// The server's defaults: retries from 1 s doubling to 10 min, for 72 hours.
    public init(
        retryBase: Duration = .seconds(1), retryCap: Duration = .seconds(600),
        giveUpAfter: Duration = .seconds(72 * 3600), lease: Duration = .seconds(15),
        idlePause: Duration = .milliseconds(250), batch: Int = 16, timeout: Duration = .seconds(5)
    ) {
        self.timeout = timeout
        self.retryBase = retryBase
        self.retryCap = retryCap
        self.giveUpAfter = giveUpAfter
        self.lease = lease
        self.idlePause = idlePause
        self.batch = max(1, batch)
    }

    /// The wait before try number `failures + 1`: the base doubled per failure up to the cap, then
    /// a random half of it taken off (`jitter` in 0...1), so receivers coming back are not hit by
    /// every server at once.
    public func retryDelay(afterFailures failures: Int, jitter: Double) -> Duration {
        let doublings = min(max(0, failures - 1), 30)
        let full = min(retryCap, retryBase * (1 << doublings))
        return full * (1 - 0.5 * min(1, max(0, jitter)))
    }
}

/// Delivers a store's lifecycle events, at least once, in order per verification.
///
/// Each round notes the codes that expired, claims the due events under a lease, and delivers
/// them side by side; a delivered event leaves the outbox, a failed one comes back after
/// ``EventDeliverySettings/retryDelay(afterFailures:jitter:)``, and one still failing
/// ``EventDeliverySettings/giveUpAfter`` after it happened is dropped. Several servers on one
/// store may each run a deliverer: the lease keeps them from sending one event at once, and a
/// deliverer that dies leaves its events to the others when the lease ends.
public final class EventDeliverer: Sendable {
    /// What became of one delivery.
    public enum Outcome: String, Sendable {
        /// The endpoint took it.
        case delivered
        /// It failed and will be tried again.
        case failed
        /// It failed for longer than the settings allow, and was removed.
        case dropped
    }

    private let store: any LifecycleEventStore
    private let settings: EventDeliverySettings
    private let deliver: @Sendable (LifecycleEvent) async -> Bool
    private let now: @Sendable () -> Date
    private let jitter: @Sendable () -> Double
    private let report: @Sendable (LifecycleEvent, Outcome) -> Void

    /// Creates a deliverer.
    ///
    /// - Parameters:
    ///   - store: the store whose outbox it empties.
    ///   - settings: retries, leases and batches.
    ///   - deliver: sends one event; `true` when the endpoint took it.
    ///   - now: the time (the verifier's clock).
    ///   - jitter: a number in 0...1 per retry.
    ///   - report: told each outcome, for metrics.
    public init(
        store: any LifecycleEventStore, settings: EventDeliverySettings = EventDeliverySettings(),
        deliver: @escaping @Sendable (LifecycleEvent) async -> Bool,
        now: @escaping @Sendable () -> Date = { Date() },
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        report: @escaping @Sendable (LifecycleEvent, Outcome) -> Void = { _, _ in }
    ) {
        self.store = store
        self.settings = settings
        self.deliver = deliver
        self.now = now
        self.jitter = jitter
        self.report = report
    }

    /// One round: notes expiries, claims and delivers what is due; returns how many were claimed.
    ///
    /// Throws ``StoreError`` when the store fails; nothing claimed is lost then, only delayed by its lease.
    @discardableResult
    public func runOnce() async throws(StoreError) -> Int {
        let start = now()
        _ = try await store.noteExpiries(now: start, limit: 1000)
        let leaseUntil = start.addingTimeInterval(seconds(settings.lease))
        let claimed = try await store.claimEvents(now: start, leaseUntil: leaseUntil, limit: settings.batch)
        let results = await withTaskGroup(of: (OutboxEvent, Bool).self) { group in
            for entry in claimed {
                group.addTask { (entry, await self.deliver(entry.event)) }
            }
            return await group.reduce(into: [(OutboxEvent, Bool)]()) { $0.append($1) }
        }
        for (entry, succeeded) in results {
            let finished = now()
            if succeeded {
                try await store.eventDelivered(id: entry.event.id)
                report(entry.event, .delivered)
            } else if finished >= entry.event.at.addingTimeInterval(seconds(settings.giveUpAfter)) {
                try await store.eventDelivered(id: entry.event.id)
                report(entry.event, .dropped)
            } else {
                let delay = settings.retryDelay(afterFailures: entry.failures + 1, jitter: jitter())
                try await store.eventFailed(
                    id: entry.event.id, retryAt: finished.addingTimeInterval(seconds(delay)),
                    leasedUntil: leaseUntil)
                report(entry.event, .failed)
            }
        }
        return claimed.count
    }

    /// Runs rounds until the task is canceled, pausing after rounds that found nothing (and after
    /// a store failure).
    public func run(clock: any Clock<Duration> = ContinuousClock()) async {
        while !Task.isCancelled {
            let claimed = (try? await runOnce()) ?? 0
            if claimed == 0 {
                do {
                    try await clock.sleep(for: settings.idlePause)
                } catch {
                    return
                }
            }
        }
    }

    private func seconds(_ duration: Duration) -> TimeInterval {
        let (whole, attoseconds) = duration.components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
