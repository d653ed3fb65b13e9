import Dispatch
import Foundation
import OTPCore
import OTPEngine

/// The shared store: Redis, so several server instances judge the same verifications.
///
/// Every read-modify-write is one Lua script (`EVALSHA`), so it is atomic in Redis. Keys
/// carry TTLs from the verifier's times, and two sorted sets index records and
/// idempotency keys by the time they may go, for ``purgeExpired(now:)``. Each store holds
/// a small pool of connections, each used from its own serial queue so a slow reply never
/// blocks Swift's cooperative threads. Scripts that wait for a connection together go out as one
/// pipeline; a start, a check and a read answer their ``StoreReply`` on the connection's queue.
public final class RedisStore: VerificationStore, @unchecked Sendable {
    // Each connection is used only on its own serial queue: that is what makes this type Sendable.
    let pool: [Lane]
    let next = Locked(0)
    let prefix: String
    /// Whether state changes write ``LifecycleEvent``s to the outbox, in the same script.
    let recordsEvents: Bool
    /// How those events mask their destinations (the start hands the masked form to its script,
    /// which keeps it for the verification's later events).
    let eventMasking: DestinationMasking
    /// Tells the owner, once, when calls start failing and when they work again.
    let outages: OutageWatch

    /// Connects to Redis and keeps every key under a prefix.
    ///
    /// - Parameters:
    ///   - host: the server's address.
    ///   - port: the server's port.
    ///   - database: the database to `SELECT`.
    ///   - keyPrefix: the start of every key, so several deployments or tests can share a server.
    ///   - connections: how many connections to open; commands spread over them.
    ///   - username: the ACL user to `AUTH` as (Redis 6 and later); `nil` for the default user.
    ///   - password: the password to `AUTH` with; `nil` when Redis asks for none.
    ///   - recordsEvents: whether state changes write ``LifecycleEvent``s to the outbox, in the
    ///     same script as the change. A verification stored while it was off has none of what its
    ///     events need: once it is on, its events carry an empty `to` and its expiry writes no
    ///     `expired` (SQLite and PostgreSQL work these out when they write each event).
    ///   - eventMasking: how those events mask their destinations.
    ///   - waitReplicas: how many replicas must hold each script's writes (`WAIT`) before the call
    ///     succeeds; fewer in time fails the call. 0 waits for none.
    ///   - report: told once when calls start failing (with the first failure's cause) and once when
    ///     they work again; `nil` tells no one.
    /// - Throws: `StoreError` when a connection cannot be opened, `AUTH` is refused, the
    ///   database cannot be selected, or the server refuses `PING` (`NOAUTH` when it needs a password).
    public convenience init(
        host: String, port: Int, database: Int = 0, keyPrefix: String = "otp:", connections: Int = 2,
        username: String? = nil, password: String? = nil, recordsEvents: Bool = false,
        eventMasking: DestinationMasking = .plain, waitReplicas: Int = 0,
        report: (@Sendable (String) -> Void)? = nil
    ) throws(StoreError) {
        try self.init(
            target: .server(RedisAddress(host: host, port: port)), database: database, keyPrefix: keyPrefix,
            connections: connections, username: username, password: password, recordsEvents: recordsEvents,
            eventMasking: eventMasking, waitReplicas: waitReplicas, report: report)
    }

    /// Connects to the primary that Redis Sentinel names, and follows it through a failover.
    ///
    /// Each new connection asks the sentinels in turn (`SENTINEL get-master-addr-by-name`) where the
    /// primary is. A connection that is lost or refused, or that a server answers with `READONLY` (a
    /// primary turned replica), is dropped; the next call asks again and connects to the new primary.
    /// A call in flight at the failover fails with `StoreError`.
    ///
    /// - Parameters:
    ///   - sentinels: the sentinels to ask, in order.
    ///   - primaryName: the name the sentinels monitor the primary under.
    ///   - database: the database to `SELECT`.
    ///   - keyPrefix: the start of every key.
    ///   - connections: how many connections to open; commands spread over them.
    ///   - username: the ACL user to `AUTH` as on the primary; `nil` for the default user.
    ///   - password: the password to `AUTH` with on the primary (sentinels are asked without one).
    ///   - recordsEvents: whether state changes write ``LifecycleEvent``s to the outbox.
    ///   - eventMasking: how those events mask their destinations.
    ///   - waitReplicas: how many replicas must hold each script's writes (`WAIT`) before the call
    ///     succeeds.
    ///   - report: told once when calls start failing and once when they work again.
    /// - Throws: `StoreError` when no sentinel names the primary or the primary cannot be used.
    public convenience init(
        sentinels: [RedisAddress], primaryName: String, database: Int = 0, keyPrefix: String = "otp:",
        connections: Int = 2, username: String? = nil, password: String? = nil, recordsEvents: Bool = false,
        eventMasking: DestinationMasking = .plain, waitReplicas: Int = 0,
        report: (@Sendable (String) -> Void)? = nil
    ) throws(StoreError) {
        guard !sentinels.isEmpty else { throw StoreError("redis: no sentinel to ask") }
        try self.init(
            target: .sentinel(sentinels: sentinels, primary: primaryName), database: database,
            keyPrefix: keyPrefix, connections: connections, username: username, password: password,
            recordsEvents: recordsEvents, eventMasking: eventMasking, waitReplicas: waitReplicas,
            report: report)
    }

    init(
        target: RedisTarget, database: Int, keyPrefix: String, connections: Int, username: String?,
        password: String?, recordsEvents: Bool, eventMasking: DestinationMasking = .plain, waitReplicas: Int,
        report: (@Sendable (String) -> Void)?
    ) throws(StoreError) {
        prefix = keyPrefix
        self.recordsEvents = recordsEvents
        self.eventMasking = eventMasking
        outages = OutageWatch(report: report)
        var pool: [Lane] = []
        for index in 0..<max(1, connections) {
            let connection = try RedisConnection(
                target: target, database: database, username: username, password: password,
                waitReplicas: max(0, waitReplicas))
            pool.append(Lane(connection: connection, queue: DispatchQueue(label: "otp.redis-store.\(index)")))
        }
        self.pool = pool
    }

    // MARK: - Keys

    func recordKey(_ id: String) -> String { prefix + "v:" + id }
    func idempotencyKey(_ key: String) -> String { prefix + "i:" + key }
    func rateKey(_ key: String) -> String { prefix + "r:" + key }
    var recordIndex: String { prefix + "purge:v" }
    func factorKey(_ id: String) -> String { prefix + "t:" + id }
    /// The event prefix the scripts take: the key prefix when events are recorded, else empty.
    var eventPrefix: [UInt8] { recordsEvents ? Array(prefix.utf8) : [] }
    var keyIndex: String { prefix + "purge:i" }
    /// A verification's delivery attempts, oldest first.
    func deliveriesKey(_ id: String) -> String { prefix + "a:" + id }
    /// One destination's verifications, scored by creation time.
    func destinationIndex(_ destination: String) -> String { prefix + "d:" + destination }

    // MARK: - VerificationStore

    /// Takes a start's one step in one Lua script (the idempotency key, the permits, the record),
    /// answering on the connection's queue.
    public func start(_ step: StartStep, now: Date, reply: @escaping StoreReply<StartAnswer>) {
        let record = step.record
        let claim = step.claim
        var keys = [
            recordKey(record.id), claim.map { idempotencyKey($0.key) } ?? recordKey(record.id), recordIndex,
            keyIndex, destinationIndex(record.destination),
        ]
        keys += step.permits.map { rateKey($0.key) }
        var arguments: [[UInt8]] = [
            Self.time(now), Array((claim == nil ? "0" : "1").utf8), Array((claim?.fingerprint ?? "").utf8),
            claim.map { Self.time($0.expiresAt) } ?? [], Array(record.id.utf8), Array(recordKey("").utf8),
            eventPrefix,
        ]
        for permit in step.permits {
            arguments.append(Array(String(permit.intervalMilliseconds).utf8))
            arguments.append(Array(String(permit.windowMilliseconds).utf8))
        }
        arguments += Self.fields(of: record)
        if recordsEvents {
            // The masked destination, so events written inside scripts need no masking there.
            arguments += [
                Array("mto".utf8),
                Array(eventMasking.mask(channel: record.channel, address: record.destination).utf8),
            ]
        }
        let permits = step.permits
        let evaluation = RedisConnection.Evaluation(
            script: RedisScripts.start, keys: keys, arguments: arguments)
        submit(.evaluate(evaluation)) { answer in
            reply(
                Result { () throws(StoreError) in try Self.startAnswer(try answer.get(), permits: permits) })
        }
    }

    static func startAnswer(_ reply: RedisValue, permits: [RatePermit]) throws(StoreError) -> StartAnswer {
        let (outcome, extra, fields) = try parse(reply)
        switch outcome {
        case "inserted": return .inserted
        case "replay":
            guard let id = fields["vid"].map(text), let fingerprint = fields["fp"].map(text),
                let expires = fields["exp"].flatMap(number)
            else { throw StoreError("redis: malformed idempotency entry") }
            return .replay(
                IdempotencyEntry(
                    verificationID: id, fingerprint: fingerprint,
                    expiresAt: StoreTime.date(milliseconds: expires)))
        case "denied":
            let (wait, index, _) = try waitParts(extra, permits: permits)
            return .denied(waitMilliseconds: wait, key: permits[index].key)
        default: throw StoreError("redis: unexpected start outcome")
        }
    }

    /// `WAIT:INDEX[:ATTEMPTS]` of a refusing reply: the wait, the refusing permit's index (from 0)
    /// and the attempts left, if given.
    static func waitParts(
        _ extra: [UInt8], permits: [RatePermit]
    ) throws(StoreError) -> (Int64, Int, Int?) {
        let parts = extra.split(separator: UInt8(ascii: ":")).map { Array($0) }
        guard parts.count == 2 || parts.count == 3, let wait = number(parts[0]), let index = number(parts[1]),
            permits.indices.contains(Int(index) - 1)
        else { throw StoreError("redis: malformed wait") }
        let attempts = parts.count == 3 ? number(parts[2]).map { Int($0) } : nil
        if parts.count == 3, attempts == nil { throw StoreError("redis: malformed wait") }
        return (wait, Int(index) - 1, attempts)
    }

    /// Reads a verification, answering on the connection's queue.
    public func record(id: String, reply: @escaping StoreReply<VerificationRecord?>) {
        let key = recordKey(id)
        submit(.body({ connection throws(StoreError) in try connection.command("HGETALL", key) })) { answer in
            reply(
                Result { () throws(StoreError) -> VerificationRecord? in
                    let value = try answer.get()
                    guard case .array(let flat) = value else { throw Self.failure(value) }
                    guard !flat.isEmpty else { return nil }
                    return try Self.record(from: Self.pairs(flat))
                })
        }
    }

    /// The live entry of an idempotency key.
    public func idempotencyEntry(key: String, now: Date) async throws(StoreError) -> IdempotencyEntry? {
        let reply = try await run { connection throws(StoreError) in
            try connection.command("HGETALL", self.idempotencyKey(key))
        }
        guard case .array(let flat) = reply else { throw Self.failure(reply) }
        let fields = Self.pairs(flat)
        guard let id = fields["vid"].map(Self.text), let fingerprint = fields["fp"].map(Self.text),
            let expires = fields["exp"].flatMap(Self.number)
        else { return nil }
        guard expires > StoreTime.milliseconds(now) else { return nil }
        return IdempotencyEntry(
            verificationID: id, fingerprint: fingerprint, expiresAt: StoreTime.date(milliseconds: expires))
    }

    /// Frees an idempotency key that still belongs to the verification.
    public func releaseIdempotencyKey(_ key: String, verificationID: String) async throws(StoreError) {
        let reply = try await evaluate(
            RedisScripts.releaseKey, keys: [idempotencyKey(key), keyIndex],
            arguments: [Array(verificationID.utf8)])
        if case .error = reply { throw Self.failure(reply) }
    }

    /// Judges a check in one Lua script (refusal, permits, attempt, comparison, approval and
    /// refunds), answering on the connection's queue; checks waiting together share one pipeline.
    public func check(_ step: CheckStep, now: Date, reply: @escaping StoreReply<CheckAnswer>) {
        submit(.evaluate(checkEvaluation(step, now: now))) { answer in
            reply(Result { () throws(StoreError) in try Self.checkAnswer(try answer.get(), step: step) })
        }
    }

    func checkEvaluation(_ attempt: CheckStep, now: Date) -> RedisConnection.Evaluation {
        // Laid out as the protocol's bulk strings as it is made: no array per key or argument.
        var tail = RedisArguments(capacity: 5 + 4 * attempt.permits.count, bytes: 320)
        tail.append(Int64(1 + attempt.permits.count))
        tail.appendJoined(prefix, "v:", attempt.id)
        for permit in attempt.permits { tail.appendJoined(prefix, "r:", permit.key) }
        tail.append(StoreTime.milliseconds(now))
        tail.append(attempt.candidateHash)
        for permit in attempt.permits {
            tail.append(permit.intervalMilliseconds)
            tail.append(permit.windowMilliseconds)
            let refunded = attempt.refundsOnApproval.contains { $0.key == permit.key }
            tail.append(refunded ? [0x31] : [0x30])
        }
        tail.append(eventPrefix)
        return RedisConnection.Evaluation(script: RedisScripts.check, tail: tail)
    }

    static func checkAnswer(_ reply: RedisValue, step: CheckStep) throws(StoreError) -> CheckAnswer {
        let (outcome, extra, fields) = try parse(reply)
        switch outcome {
        case "incorrect": return .incorrect(attemptsLeft: try attempts(extra))
        case "approved": return .approved(try record(from: fields))
        case "notFound": return .notFound
        case "notPending": return .notPending(attemptsLeft: try attempts(extra))
        case "expired": return .expired(attemptsLeft: try attempts(extra))
        case "locked": return .locked
        case "rateLimited":
            let (wait, index, left) = try waitParts(extra, permits: step.permits)
            guard let left else { throw StoreError("redis: malformed wait") }
            return .rateLimited(waitMilliseconds: wait, key: step.permits[index].key, attemptsLeft: left)
        default: throw StoreError("redis: unexpected check outcome")
        }
    }

    /// The attempts left a check reply carries.
    static func attempts(_ extra: [UInt8]) throws(StoreError) -> Int {
        guard let left = number(extra) else { throw StoreError("redis: malformed attempts left") }
        return Int(left)
    }

    /// Claims the next send.
    public func beginResend(
        id: String, lease: ResendLease, maxSends: Int, now: Date
    ) async throws(StoreError)
        -> BeginResendOutcome
    {
        let reply = try await evaluate(
            RedisScripts.beginResend, keys: [recordKey(id)],
            arguments: [
                Array(lease.token.utf8), Self.time(lease.until), Array(String(maxSends).utf8), Self.time(now),
            ])
        let (outcome, extra, fields) = try Self.parse(reply)
        if outcome == "notFound" { return .notFound }
        let record = try Self.record(from: fields)
        switch outcome {
        case "begun": return .begun(record)
        case "notPending": return .notPending(record)
        case "maxSendsReached": return .maxSendsReached(record)
        case "tooSoon":
            guard let until = Self.number(extra) else { throw StoreError("redis: malformed wait") }
            return .tooSoon(record, until: StoreTime.date(milliseconds: until))
        default: throw StoreError("redis: unexpected resend outcome")
        }
    }

    /// Puts a resend's code in place.
    public func finishResend(
        id: String, token: String, update: CodeUpdate, now: Date
    ) async throws(StoreError)
        -> TransitionOutcome
    {
        let reply = try await evaluate(
            RedisScripts.finishResend, keys: [recordKey(id), recordIndex, deliveriesKey(id)],
            arguments: [
                Array(token.utf8), update.codeHash, Array(String(update.attemptsLeft).utf8),
                Array(String(update.sendsUsed).utf8), Self.time(update.expiresAt),
                update.resendAvailableAt.map(Self.time) ?? [], Self.time(update.purgeAt),
                Self.time(now), Array(id.utf8), eventPrefix, Array(destinationIndex("").utf8),
            ])
        return try transition(reply)
    }

    /// Gives up a resend's lease.
    public func abandonResend(id: String, token: String) async throws(StoreError) {
        let reply = try await evaluate(
            RedisScripts.abandonResend, keys: [recordKey(id)], arguments: [Array(token.utf8)])
        if case .error = reply { throw Self.failure(reply) }
    }

    /// Takes every permit or none.
    public func acquire(_ permits: [RatePermit], now: Date) async throws(StoreError) -> RateDecision {
        guard !permits.isEmpty else { return .allowed }
        var arguments = [Self.time(now)]
        for permit in permits {
            arguments.append(Array(String(permit.intervalMilliseconds).utf8))
            arguments.append(Array(String(permit.windowMilliseconds).utf8))
        }
        let reply = try await evaluate(
            RedisScripts.acquire, keys: permits.map { rateKey($0.key) }, arguments: arguments)
        let (outcome, extra, fields) = try Self.parse(reply)
        switch outcome {
        case "allowed": return .allowed
        case "denied":
            guard let wait = Self.number(extra), let index = fields["i"].flatMap(Self.number),
                permits.indices.contains(Int(index) - 1)
            else { throw StoreError("redis: malformed wait") }
            return .denied(waitMilliseconds: wait, key: permits[Int(index) - 1].key)
        default: throw StoreError("redis: unexpected rate outcome")
        }
    }

    /// Gives permits back.
    public func release(_ permits: [RatePermit], now: Date) async throws(StoreError) {
        guard !permits.isEmpty else { return }
        let arguments = [Self.time(now)] + permits.map { Array(String($0.intervalMilliseconds).utf8) }
        let reply = try await evaluate(
            RedisScripts.release, keys: permits.map { rateKey($0.key) }, arguments: arguments)
        if case .error = reply { throw Self.failure(reply) }
    }

    /// Deletes records and idempotency keys whose time has passed; counters expire by their TTL.
    public func purgeExpired(now: Date) async throws(StoreError) -> Int {
        var deleted = 0
        while true {
            let reply = try await evaluate(
                RedisScripts.purge, keys: [recordIndex, keyIndex],
                arguments: [
                    Self.time(now), Array(recordKey("").utf8), Array("500".utf8),
                    Array(deliveriesKey("").utf8),
                    Array(destinationIndex("").utf8),
                ])
            guard case .array(let parts) = reply, parts.count == 2, case .integer(let count) = parts[0],
                case .integer(let full) = parts[1]
            else { throw Self.failure(reply) }
            deleted += Int(count)
            if full == 0 { break }
        }
        try await purgeFraud(now: now)
        return deleted
    }

    /// Whether Redis takes a write.
    ///
    /// A short-lived key is set, so a server out of memory, refusing writes after a failed save, or
    /// a read-only replica answers unhealthy, not only one that is down.
    public func ping() async -> Bool {
        let key = prefix + "health"
        return
            (try? await run { connection throws(StoreError) in
                try connection.command("SET", key, "1", "PX", "60000")
            }) == .status("OK")
    }

    /// Closes every connection once the calls already queued on it have run; later calls throw.
    public func shutdown() async {
        for lane in pool {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lane.queue.async {
                    lane.connection.close()
                    continuation.resume()
                }
            }
        }
    }

    // MARK: - Helpers

    func settle(
        _ id: String, to state: VerificationRecord.State, eventsAt now: Date
    ) async throws(StoreError) -> TransitionOutcome {
        let reply = try await evaluate(
            RedisScripts.settle, keys: [recordKey(id)],
            arguments: [Array(state.rawValue.utf8), eventPrefix, Self.time(now)])
        return try transition(reply)
    }

    /// Cancels a pending verification; the `canceled` event, when recorded, is at `now`.
    public func cancel(id: String, now: Date) async throws(StoreError) -> TransitionOutcome {
        try await settle(id, to: .canceled, eventsAt: now)
    }

    func transition(_ reply: RedisValue) throws(StoreError) -> TransitionOutcome {
        let (outcome, _, fields) = try Self.parse(reply)
        if outcome == "notFound" { return .notFound }
        let record = try Self.record(from: fields)
        switch outcome {
        case "done": return .done(record)
        case "notPending": return .notPending(record)
        case "leaseLost": return .leaseLost(record)
        default: throw StoreError("redis: unexpected outcome")
        }
    }

}
