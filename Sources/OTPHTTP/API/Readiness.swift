import OTPEngine

/// Whether the server should take traffic: its store takes writes, and its lifecycle events get
/// out (the outbox's backlog is under its bound).
struct Readiness: Sendable, Equatable {
    /// Whether the store answered a write.
    var storeWritable: Bool
    /// The events waiting in the outbox, when the server delivers events and the store told it.
    var eventBacklog: Int?
    /// The backlog above which the server is not ready.
    var maxEventBacklog: Int?

    /// Ready when the store takes writes and the backlog, if counted, is at most its bound.
    var isReady: Bool {
        guard storeWritable else { return false }
        guard let maxEventBacklog else { return true }
        guard let eventBacklog else { return false }
        return eventBacklog <= maxEventBacklog
    }

    /// Asks the store: a write (as `/healthz` does) and, when a bound is given, the backlog.
    static func judge(_ verifier: Verifier, maxEventBacklog: Int?) async -> Readiness {
        let writable = await verifier.isHealthy()
        guard let maxEventBacklog else { return Readiness(storeWritable: writable) }
        return Readiness(
            storeWritable: writable, eventBacklog: await verifier.eventBacklog(),
            maxEventBacklog: maxEventBacklog)
    }
}
