import Foundation
import OTPCore
import OTPEngine

/// How the server reports each decision of the pumping guard: a JSON log line with its figures,
/// the `otp_fraud_decisions_total{region,action}` metric, and for a block the `fraud_blocked`
/// lifecycle event.
///
/// Every block is logged. Refusals are many under an attack (every start to a blocked prefix is
/// one, and in shadow mode every one is sent), so their lines are thinned: at most one `refuse`
/// line per block key per minute of the decisions' own time (``RefusalThrottle``), whose
/// `refusals` field counts the refusals it stands for (itself and those of the key not logged since
/// the key's previous line). The metric counts every refusal.
enum FraudReport {
    /// The observer a server's verifier calls with each decision.
    static func reporter(
        metrics: ServerMetrics, log: RequestLog, events: EventsConfiguration?
    ) -> @Sendable (FraudDecision) -> Void {
        reporter(
            metrics: metrics, log: log,
            poster: events.map { BlockEventPoster(events: $0, metrics: metrics, log: log) })
    }

    /// The observer, posting each block's event through `poster` (a server's, which it stops).
    static func reporter(
        metrics: ServerMetrics, log: RequestLog, poster: BlockEventPoster?
    ) -> @Sendable (FraudDecision) -> Void {
        let throttle = RefusalThrottle()
        return { decision in
            metrics.recordFraudDecision(region: decision.subject.region, action: action(decision))
            var extra: [(String, String)] = []
            if decision.action == .refuse {
                guard let refusals = throttle.admit(key: decision.block.key, at: decision.at) else { return }
                extra = [("refusals", String(refusals))]
            }
            log.log(
                decision.action == .block ? .warning : .info, message(decision),
                fields: [("event", "fraud_decision")] + Array(fields(decision)) + extra)
            guard decision.action == .block, let poster else { return }
            // Posted by the server whose step made the block; not kept in the outbox.
            poster.post(LifecycleEvent.fraudBlocked(decision))
        }
    }

    /// Posts `fraud_blocked` events, each retried after a failure on the outbox's schedule
    /// (``EventDeliverySettings/retryDelay(afterFailures:jitter:)``) until the endpoint takes it or
    /// the waits would pass ``EventDeliverySettings/giveUpAfter``.
    ///
    /// A block belongs to no verification, so its event has no row in the store's outbox: its
    /// retries live in this process, and a restart drops those still waiting. At most ``limit``
    /// events wait at once; past that a failed event is dropped at once. Each event ends as one
    /// `otp_events_total{type="fraud_blocked"}` count, `delivered` or `dropped`. A server stops its
    /// poster with its other parts (``stop(grace:)``): the posts under way end, and none starts.
    final class BlockEventPoster: ServerService {
        /// The most events waiting for a retry at once.
        static let limit = 256

        private struct Posts {
            var running: [Int: Task<Void, Never>] = [:]
            var next = 0
            var stopped = false
        }

        private let posts = Locked(Posts())

        private let events: EventsConfiguration
        private let metrics: ServerMetrics
        private let log: RequestLog
        private let sleep: @Sendable (Duration) async throws -> Void
        private let jitter: @Sendable () -> Double
        private let waiting = Locked(0)

        /// Creates a poster; `sleep` waits between tries (a manual clock's in tests), `jitter`
        /// draws the share of each wait taken off.
        init(
            events: EventsConfiguration, metrics: ServerMetrics, log: RequestLog,
            sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
            jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
        ) {
            self.events = events
            self.metrics = metrics
            self.log = log
            self.sleep = sleep
            self.jitter = jitter
        }

        /// Posts `event` from a task of its own; nothing once the poster is stopped.
        func post(_ event: LifecycleEvent) {
            posts.withLock { posts in
                guard !posts.stopped else { return }
                let number = posts.next
                posts.next += 1
                // The task removes itself under the same lock, so only after it is put in.
                posts.running[number] = Task { [self] in
                    await deliver(event)
                    self.posts.withLock { _ = $0.running.removeValue(forKey: number) }
                }
            }
        }

        /// Ends the posts under way (a waiting one is dropped, a post in flight finishes) and
        /// refuses new ones; returns when every post has ended.
        func stop(grace: Duration) async {
            let running = posts.withLock { posts -> [Task<Void, Never>] in
                posts.stopped = true
                return Array(posts.running.values)
            }
            for task in running { task.cancel() }
            for task in running { await task.value }
        }

        /// How many posts are under way.
        var underWay: Int { posts.withLock { $0.running.count } }

        /// Tries `event` until it is taken or given up; returns whether it was taken.
        @discardableResult
        func deliver(_ event: LifecycleEvent) async -> Bool {
            let settings = events.settings
            var failures = 0
            var waited = Duration.zero
            var holdsPlace = false
            defer { if holdsPlace { waiting.withLock { $0 -= 1 } } }
            while true {
                if await events.deliver(event) {
                    metrics.recordEvent(type: event.kind.rawValue, result: "delivered")
                    return true
                }
                failures += 1
                let wait = settings.retryDelay(afterFailures: failures, jitter: jitter())
                if !holdsPlace {
                    holdsPlace = waiting.withLock { count in
                        guard count < Self.limit else { return false }
                        count += 1
                        return true
                    }
                }
                guard holdsPlace, waited + wait <= settings.giveUpAfter else { break }
                do {
                    try await sleep(wait)
                } catch {
                    break
                }
                waited += wait
            }
            metrics.recordEvent(type: event.kind.rawValue, result: "dropped")
            log.log(
                .error, "a fraud_blocked event was dropped after \(failures) failed posts",
                fields: [("event", "fraud_event_dropped"), ("id", event.id)])
            return false
        }
    }

    /// Which refusals get a log line: the first of a block key, then the first one a minute or more
    /// after the key's previous line; the others are folded into the next line's count.
    final class RefusalThrottle: Sendable {
        /// One line per key per this much of the decisions' time.
        static let interval: TimeInterval = 60
        /// Keys past this many are pruned of those not logged for an hour.
        static let pruneAbove = 1024

        private struct Entry {
            var logged: Date
            var unlogged: Int
        }

        private let entries = Locked<[String: Entry]>([:])

        /// The refusals a line for this one stands for (this one and the key's unlogged ones), or
        /// `nil` when this refusal gets no line of its own and is counted into the key's next.
        func admit(key: String, at now: Date) -> Int? {
            entries.withLock { entries in
                if var entry = entries[key], now.timeIntervalSince(entry.logged) < Self.interval {
                    entry.unlogged += 1
                    entries[key] = entry
                    return nil
                }
                let count = (entries[key]?.unlogged ?? 0) + 1
                if entries.count >= Self.pruneAbove {
                    entries = entries.filter { now.timeIntervalSince($0.value.logged) < 3600 }
                }
                entries[key] = Entry(logged: now, unlogged: 0)
                return count
            }
        }
    }

    /// The log line's message: what the guard did, and to which prefix or region.
    static func message(_ decision: FraudDecision) -> String {
        let target =
            decision.level == .region
            ? "region \(decision.subject.region)"
            : "prefix \(decision.subject.prefix) (\(decision.subject.region))"
        let shadow = decision.mode == .shadow ? " (shadow: nothing refused)" : ""
        switch decision.action {
        case .block: return "the pumping guard blocks \(target): its conversion collapsed\(shadow)"
        case .refuse: return "the pumping guard refuses a start to \(target), which it blocks\(shadow)"
        }
    }

    /// The metric's action: `block` or `refuse`, `shadow_` before it in shadow mode.
    static func action(_ decision: FraudDecision) -> String {
        (decision.mode == .shadow ? "shadow_" : "") + decision.action.rawValue
    }

    /// The log line's fields: the decision, the subject (region and prefix, never a number), the
    /// block, and for a block the figures it was judged on.
    static func fields(_ decision: FraudDecision) -> KeyValuePairs<String, String> {
        let judgement = decision.judgement
        let figure: (Double?) -> String = { value in value.map { String(format: "%.4f", $0) } ?? "none" }
        return [
            "action": action(decision), "mode": decision.mode.rawValue, "level": decision.level.rawValue,
            "region": decision.subject.region, "prefix": decision.subject.prefix,
            "channel": decision.subject.channel.rawValue,
            "blockedUntil": ResponseJSON.timestamp(decision.block.until),
            "repeat": String(decision.block.repeats),
            "sends": judgement.map { String($0.sends) } ?? "none",
            "approvals": judgement.map { String($0.approvals) } ?? "none",
            "conversion": figure(judgement?.conversion), "baseline": figure(judgement?.baseline),
            "threshold": figure(judgement?.threshold),
        ]
    }
}
