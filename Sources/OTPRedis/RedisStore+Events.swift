import Foundation
import OTPCore
import OTPEngine

// The lifecycle event outbox: events written by the same script as the change that caused them,
// claimed under a lease, and marked delivered or due again.

extension RedisStore {
    /// Hands out each due verification's oldest undelivered event, leased until `leaseUntil`, in one script.
    ///
    /// An event this version cannot read (a kind or channel it does not know) is not handed out:
    /// it waits a day, counted as a failure and in the backlog, and the others go on.
    public func claimEvents(now: Date, leaseUntil: Date, limit: Int) async throws(StoreError) -> [OutboxEvent]
    {
        let reply = try await evaluate(
            RedisScripts.claimEvents, keys: [],
            arguments: [
                Array(prefix.utf8), Self.time(now), Self.time(leaseUntil), Array(String(max(0, limit)).utf8),
            ])
        guard case .array(let flat) = reply, flat.count % 8 == 0 else { throw Self.failure(reply) }
        var claimed: [OutboxEvent] = []
        for start in stride(from: 0, to: flat.count, by: 8) {
            let fields = flat[start..<start + 8].map { value -> [UInt8] in
                if case .string(let bytes) = value { return bytes }
                return []
            }
            guard let kind = LifecycleEvent.Kind(rawValue: Self.text(fields[1])),
                let channel = Channel(rawValue: Self.text(fields[3])), let at = Self.number(fields[5]),
                let failures = Self.number(fields[6])
            else {
                // Written by another version, say, before a rollback: it waits (and keeps its
                // verification's later events waiting), counted in the backlog, while every other
                // verification's events go on.
                // A failure here leaves it leased, to be read again when its lease ends.
                try? await eventFailed(
                    id: Self.text(fields[0]), retryAt: now.addingTimeInterval(Self.unreadableEventWait),
                    leasedUntil: leaseUntil)
                continue
            }
            claimed.append(
                OutboxEvent(
                    event: LifecycleEvent(
                        id: Self.text(fields[0]), kind: kind, verificationID: Self.text(fields[2]),
                        channel: channel, to: Self.text(fields[4]), at: StoreTime.date(milliseconds: at),
                        ref: fields[7].isEmpty ? nil : Self.text(fields[7])),
                    failures: Int(failures)))
        }
        return claimed
    }

    /// Removes a delivered event; the verification's next one becomes due.
    public func eventDelivered(id: String) async throws(StoreError) {
        let reply = try await evaluate(
            RedisScripts.eventDelivered, keys: [], arguments: [Array(prefix.utf8), Array(id.utf8)])
        if case .error = reply { throw Self.failure(reply) }
    }

    /// Counts a failed delivery and sets the next try, while the event's lease is the one given.
    public func eventFailed(id: String, retryAt: Date, leasedUntil: Date) async throws(StoreError) {
        let reply = try await evaluate(
            RedisScripts.eventFailed, keys: [],
            arguments: [Array(prefix.utf8), Array(id.utf8), Self.time(retryAt), Self.time(leasedUntil)])
        if case .error = reply { throw Self.failure(reply) }
    }

    /// Notes `expired` for pending codes past their lifetime, in one script.
    public func noteExpiries(now: Date, limit: Int) async throws(StoreError) -> Int {
        guard recordsEvents else { return 0 }
        let reply = try await evaluate(
            RedisScripts.noteExpiries, keys: [],
            arguments: [
                Array(prefix.utf8), Self.time(now), Array(String(max(0, limit)).utf8),
                Array(recordKey("").utf8),
            ])
        guard case .integer(let written) = reply else { throw Self.failure(reply) }
        return Int(written)
    }

    /// The events not yet delivered.
    public func undeliveredEventCount() async throws(StoreError) -> Int {
        let key = prefix + "evn"
        let reply = try await run { connection throws(StoreError) in try connection.command("GET", key) }
        switch reply {
        case .null: return 0
        case .string(let bytes):
            guard let count = Self.number(bytes) else { throw StoreError("redis: malformed event count") }
            return Int(count)
        default: throw Self.failure(reply)
        }
    }
}
