import Foundation
import OTPCore

/// Something that happened to a verification, for the operator's event webhook.
///
/// It names the verification, its channel and its masked destination, never the code or the full
/// destination. Its ``id`` is fixed by what happened (the verification, the kind, and which code
/// of the verification it concerns), so a receiver deduplicates by it: an event delivered twice, or
/// noted again after a crash, has the same id.
public struct LifecycleEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: String, Sendable, CaseIterable {
        /// A verification was started and its first code sent.
        case pending
        /// A right code was checked.
        case approved
        /// The verification was canceled.
        case canceled
        /// The current code's lifetime passed while it was pending; noted even if no request touches it.
        case expired
        /// A wrong code used the current code's last attempt.
        case maxAttemptsReached = "max_attempts_reached"
        /// The SMS pumping guard blocked a prefix or a region (``LifecycleEvent/fraudBlocked(_:)``);
        /// not about one verification, and posted once, straight from the decision, not from an outbox.
        case fraudBlocked = "fraud_blocked"
    }

    /// Stable across deliveries: `evt_` + verification id + kind + the code's number.
    public var id: String
    /// What happened.
    public var kind: Kind
    /// The verification it happened to.
    public var verificationID: String
    /// The verification's channel.
    public var channel: Channel
    /// The destination, masked as the API shows it.
    public var to: String
    /// When it happened.
    public var at: Date
    /// The caller's reference from the start, if it gave one.
    public var ref: String?

    /// Creates an event.
    public init(
        id: String, kind: Kind, verificationID: String, channel: Channel, to: String, at: Date,
        ref: String? = nil
    ) {
        self.ref = ref
        self.id = id
        self.kind = kind
        self.verificationID = verificationID
        self.channel = channel
        self.to = to
        self.at = at
    }

    /// The event of `kind` about `record`'s current code, its destination masked by `masking`.
    public init(
        _ kind: Kind, of record: VerificationRecord, at now: Date, masking: DestinationMasking = .plain
    ) {
        self.init(
            id: Self.id(kind, verificationID: record.id, codeNumber: record.sendsUsed), kind: kind,
            verificationID: record.id, channel: record.channel,
            to: masking.mask(channel: record.channel, address: record.destination), at: now,
            ref: record.ref)
    }

    /// The event of a guard's block: no verification (an empty ``verificationID``), `to` the blocked
    /// prefix (`+447911`) or region (`+44`), the id fixed by the key and its repeat count.
    public static func fraudBlocked(_ decision: FraudDecision) -> LifecycleEvent {
        let target = decision.level == .region ? decision.subject.region : decision.subject.prefix
        return LifecycleEvent(
            id: "evt_fraud.\(decision.level.rawValue).\(target).\(decision.block.repeats)",
            kind: .fraudBlocked,
            verificationID: "", channel: decision.subject.channel, to: target, at: decision.at)
    }

    /// The id of the event of `kind` about a verification's `codeNumber`-th code.
    public static func id(_ kind: Kind, verificationID: String, codeNumber: Int) -> String {
        "evt_\(verificationID).\(kind.rawValue).\(codeNumber)"
    }

    /// The event a change of a record causes, if any: `before` is `nil` for a new record.
    ///
    /// A new record is `pending`; a pending one that became approved or canceled is that; one
    /// whose last attempt a wrong code used is `maxAttemptsReached`. Expiry is not a change of
    /// the record: a store notes it when it sweeps (``LifecycleEventStore/noteExpiries(now:limit:)``),
    /// and here only when a resend replaces a code that had expired before the sweep came to it:
    /// that code's `expired`, with the id and time the sweep would have given it.
    public static func caused(
        from before: VerificationRecord?, to after: VerificationRecord, at now: Date,
        masking: DestinationMasking = .plain
    ) -> LifecycleEvent? {
        guard let before else { return LifecycleEvent(.pending, of: after, at: now, masking: masking) }
        guard before.state == .pending else { return nil }
        switch after.state {
        case .approved: return LifecycleEvent(.approved, of: after, at: now, masking: masking)
        case .canceled: return LifecycleEvent(.canceled, of: after, at: now, masking: masking)
        case .pending:
            if after.sendsUsed > before.sendsUsed, before.expiresAt <= now {
                return LifecycleEvent(.expired, of: before, at: before.expiresAt, masking: masking)
            }
            guard before.attemptsLeft > 0, after.attemptsLeft <= 0, before.sendsUsed == after.sendsUsed else {
                return nil
            }
            return LifecycleEvent(.maxAttemptsReached, of: after, at: now, masking: masking)
        }
    }
}

/// An event waiting in a store's outbox, as handed to the deliverer.
public struct OutboxEvent: Sendable, Equatable {
    /// The event.
    public var event: LifecycleEvent
    /// Deliveries tried and failed so far.
    public var failures: Int

    /// Creates an outbox entry.
    public init(event: LifecycleEvent, failures: Int) {
        self.event = event
        self.failures = failures
    }
}

/// A store that keeps an outbox of ``LifecycleEvent``s, written in the same atomic step as the
/// change that causes each.
///
/// A store records events only when opened to (``MemoryStore/init(recordsEvents:)`` and the
/// SQLite and Redis stores' `recordsEvents`); then every start writes `pending`, every approval,
/// cancellation and last wrong attempt its event, and ``noteExpiries(now:limit:)`` writes
/// `expired` for codes whose lifetime passed (a resend that replaces such a code before the sweep
/// writes it instead, as ``LifecycleEvent/caused(from:to:at:masking:)`` gives it). Events of one verification are handed out in order,
/// one at a time: the next only once the one before is delivered.
public protocol LifecycleEventStore: Sendable {
    /// Hands out at most `limit` events that are due at `now`: for each verification, its oldest
    /// undelivered event, when its retry time has come. Each is leased until `leaseUntil`, so no
    /// other deliverer (another server on the same store) takes it before then, atomically.
    func claimEvents(now: Date, leaseUntil: Date, limit: Int) async throws(StoreError) -> [OutboxEvent]

    /// Removes a delivered event from the outbox (its id stays known until the verification is purged).
    func eventDelivered(id: String) async throws(StoreError)

    /// Counts a failed delivery and sets when to try again, if the event is still leased until
    /// `leasedUntil`, the lease its claim set; else it changes nothing.
    ///
    /// A deliverer that outlived its lease may find its event claimed again by another, which now
    /// holds it: a failure it reports then must not cut that lease short (the event would be handed
    /// out a third time while the second delivery runs) nor count twice.
    func eventFailed(id: String, retryAt: Date, leasedUntil: Date) async throws(StoreError)

    /// Writes `expired` for at most `limit` pending codes whose lifetime has passed by `now` and
    /// that have none yet; returns how many it wrote.
    func noteExpiries(now: Date, limit: Int) async throws(StoreError) -> Int

    /// The events not yet delivered, oldest first (for tests and `/metrics`).
    func undeliveredEventCount() async throws(StoreError) -> Int
}

extension LifecycleEventStore {
    /// How long an event a store cannot read (a kind or channel of a newer version, after a
    /// rollback) waits before it is read again, in seconds: it stays counted in the backlog, and
    /// the other verifications' events go on.
    public static var unreadableEventWait: TimeInterval { 86_400 }
}
