import Foundation
import OTPCore
import OTPEngine

// Delivery attempts and the search by destination: what support staff read.

extension RedisStore {
    /// An attempt as a list entry holds it: JSON with short names.
    private struct StoredAttempt: Codable {
        var at: Int64
        var ch: String
        var step: String
        var out: String
        var why: String?
        var mid: String?
    }

    /// Keeps a delivery attempt in its verification's list, expiring with the record, in one
    /// script; answers on the connection's queue.
    public func noteDelivery(_ attempt: DeliveryAttempt, reply: @escaping StoreReply<Void>) {
        let stored = StoredAttempt(
            at: StoreTime.milliseconds(attempt.at), ch: attempt.channel.rawValue, step: attempt.step.rawValue,
            out: attempt.outcome.rawValue, why: attempt.reason, mid: attempt.messageID)
        guard let encoded = try? JSONEncoder().encode(stored) else {
            return reply(.failure(StoreError("redis: a delivery attempt cannot be encoded")))
        }
        let evaluation = RedisConnection.Evaluation(
            script: RedisScripts.noteDelivery,
            keys: [recordKey(attempt.verificationID), deliveriesKey(attempt.verificationID)],
            arguments: [Self.time(attempt.at), Array(encoded)])
        submit(.evaluate(evaluation)) { answer in
            reply(
                Result { () throws(StoreError) in
                    let value = try answer.get()
                    guard case .integer = value else { throw Self.failure(value) }
                })
        }
    }

    /// A verification's delivery attempts, oldest first.
    public func deliveries(id: String) async throws(StoreError) -> [DeliveryAttempt] {
        let key = deliveriesKey(id)
        let value = try await run { connection throws(StoreError) in
            try connection.command("LRANGE", key, "0", "-1")
        }
        guard case .array(let entries) = value else { throw Self.failure(value) }
        return try entries.map { (entry: RedisValue) throws(StoreError) -> DeliveryAttempt in
            guard case .string(let bytes) = entry,
                let stored = try? JSONDecoder().decode(StoredAttempt.self, from: Data(bytes)),
                let channel = Channel(rawValue: stored.ch),
                let step = DeliveryAttempt.Step(rawValue: stored.step),
                let outcome = DeliveryAttempt.Outcome(rawValue: stored.out)
            else { throw StoreError("redis: malformed delivery attempt") }
            return DeliveryAttempt(
                verificationID: id, at: StoreTime.date(milliseconds: stored.at), channel: channel, step: step,
                outcome: outcome, reason: stored.why, messageID: stored.mid)
        }
    }

    /// The verifications a query finds, newest first, from the destination's index, in one script.
    public func verifications(
        matching query: VerificationQuery, now: Date
    ) async throws(StoreError)
        -> [VerificationRecord]
    {
        guard query.limit > 0 else { return [] }
        let highest = query.after.map { String($0.createdAtMilliseconds) } ?? "+inf"
        let lowest = query.since.map { String(StoreTime.milliseconds($0)) } ?? "-inf"
        let reply = try await evaluate(
            RedisScripts.search, keys: [destinationIndex(query.destination)],
            arguments: [
                Self.time(now), Array(highest.utf8), Array(lowest.utf8), Array((query.after?.id ?? "").utf8),
                Array((query.status?.rawValue ?? "").utf8), Array(String(query.limit).utf8),
                Array(recordKey("").utf8),
            ])
        guard case .array(let found) = reply else { throw Self.failure(reply) }
        return try found.map { (entry: RedisValue) throws(StoreError) -> VerificationRecord in
            guard case .array(let flat) = entry else { throw Self.failure(entry) }
            return try Self.record(from: Self.pairs(flat))
        }
    }
}
