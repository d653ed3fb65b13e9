import Dispatch
import Foundation
import OTPCore
import OTPServer

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
    private let pool: [Lane]
    private let next = Counter()
    private let prefix: String
    /// Whether state changes write ``LifecycleEvent``s to the outbox, in the same script.
    private let recordsEvents: Bool

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
    ///     same script as the change.
    /// - Throws: `StoreError` when a connection cannot be opened, `AUTH` is refused or the
    ///   database cannot be selected.
    public init(
        host: String, port: Int, database: Int = 0, keyPrefix: String = "otp:", connections: Int = 2,
        username: String? = nil, password: String? = nil, recordsEvents: Bool = false
    ) throws(StoreError) {
        prefix = keyPrefix
        self.recordsEvents = recordsEvents
        var pool: [Lane] = []
        for index in 0..<max(1, connections) {
            let connection = try RedisConnection(
                host: host, port: port, database: database, username: username, password: password)
            pool.append(Lane(connection: connection, queue: DispatchQueue(label: "otp.redis-store.\(index)")))
        }
        self.pool = pool
    }

    // MARK: - Keys

    private func recordKey(_ id: String) -> String { prefix + "v:" + id }
    private func idempotencyKey(_ key: String) -> String { prefix + "i:" + key }
    private func rateKey(_ key: String) -> String { prefix + "r:" + key }
    private var recordIndex: String { prefix + "purge:v" }
    private func factorKey(_ id: String) -> String { prefix + "t:" + id }
    /// The event prefix the scripts take: the key prefix when events are recorded, else empty.
    private var eventPrefix: [UInt8] { recordsEvents ? Array(prefix.utf8) : [] }
    private var keyIndex: String { prefix + "purge:i" }

    // MARK: - VerificationStore

    /// Takes a start's one step in one Lua script (the idempotency key, the permits, the record),
    /// answering on the connection's queue.
    public func start(_ step: StartStep, now: Date, reply: @escaping StoreReply<StartAnswer>) {
        let record = step.record
        let claim = step.claim
        var keys = [
            recordKey(record.id), claim.map { idempotencyKey($0.key) } ?? recordKey(record.id), recordIndex,
            keyIndex,
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
                Array(Destination.mask(channel: record.channel, address: record.destination).utf8),
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
    private static func waitParts(
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

    private func checkEvaluation(_ attempt: CheckStep, now: Date) -> RedisConnection.Evaluation {
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
        case "notPending": return .notPending
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
    private static func attempts(_ extra: [UInt8]) throws(StoreError) -> Int {
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
            RedisScripts.finishResend, keys: [recordKey(id), recordIndex],
            arguments: [
                Array(token.utf8), update.codeHash, Array(String(update.attemptsLeft).utf8),
                Array(String(update.sendsUsed).utf8), Self.time(update.expiresAt),
                update.resendAvailableAt.map(Self.time) ?? [], Self.time(update.purgeAt),
                Self.time(now), Array(id.utf8), eventPrefix,
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
                arguments: [Self.time(now), Array(recordKey("").utf8), Array("500".utf8)])
            guard case .array(let parts) = reply, parts.count == 2, case .integer(let count) = parts[0],
                case .integer(let full) = parts[1]
            else { throw Self.failure(reply) }
            deleted += Int(count)
            if full == 0 { return deleted }
        }
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

    private func settle(
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

    // MARK: - TOTPFactorStore

    /// Stores a new factor.
    public func insertFactor(_ factor: TOTPFactor) async throws(StoreError) {
        let key = factorKey(factor.id)
        let fields: [(String, [UInt8])] = [
            ("id", Array(factor.id.utf8)), ("acc", Array(factor.account.utf8)),
            ("iss", Array(factor.issuer.utf8)),
            ("sec", factor.sealedSecret), ("st", Array(factor.status.rawValue.utf8)),
            ("ls", factor.lastUsedStep.map { Array(String($0).utf8) } ?? []),
            ("f", Array(String(factor.failures).utf8)),
            ("rc", TOTPFactor.concatenated(factor.recoveryHashes)),
            ("cat", Self.time(factor.createdAt)),
            ("lku", factor.lockedUntil.map(Self.time) ?? []), ("lks", Array(String(factor.locks).utf8)),
            ("urc", TOTPFactor.concatenated(factor.usedRecoveryHashes)),
        ]
        let arguments = fields.flatMap { [Array($0.0.utf8), $0.1] }
        let reply = try await evaluate(RedisScripts.insertFactor, keys: [key], arguments: arguments)
        if case .error = reply { throw Self.failure(reply) }
    }

    /// The factor with an identifier.
    public func factor(id: String) async throws(StoreError) -> TOTPFactor? {
        let key = factorKey(id)
        let reply = try await run { connection throws(StoreError) in try connection.command("HGETALL", key) }
        guard case .array(let flat) = reply else { throw Self.failure(reply) }
        guard !flat.isEmpty else { return nil }
        return try Self.factor(from: Self.pairs(flat))
    }

    /// Judges a code in one script.
    public func judgeFactor(
        id: String, matchedStep: Int64?, maxFailures: Int, now: Date
    ) async throws(StoreError) -> TOTPJudgement {
        let reply = try await evaluate(
            RedisScripts.judgeFactor, keys: [factorKey(id)],
            arguments: [
                matchedStep.map { Array(String($0).utf8) } ?? [], Array(String(maxFailures).utf8),
                Self.time(now),
                Self.lockSchedule,
            ])
        let (outcome, extra, fields) = try Self.parse(reply)
        if outcome == "notFound" { return .notFound }
        let factor = try Self.factor(from: fields)
        switch outcome {
        case "locked": return .locked(factor)
        case "incorrect": return .incorrect(factor)
        case "alreadyUsed": return .alreadyUsed(factor)
        case "accepted": return .accepted(factor, confirmed: extra == [0x31])
        default: throw StoreError("redis: unexpected judgement")
        }
    }

    /// Uses a recovery code in one script.
    public func recoverFactor(
        id: String, hash: [UInt8], maxFailures: Int, now: Date
    ) async throws(StoreError) -> TOTPRecovery {
        let reply = try await evaluate(
            RedisScripts.recoverFactor, keys: [factorKey(id)],
            arguments: [hash, Array(String(maxFailures).utf8), Self.time(now), Self.lockSchedule])
        let (outcome, _, fields) = try Self.parse(reply)
        if outcome == "notFound" { return .notFound }
        let factor = try Self.factor(from: fields)
        switch outcome {
        case "notActive": return .notActive(factor)
        case "alreadyUsed": return .alreadyUsed(factor)
        case "used": return .used(factor)
        case "unknown": return .unknown(factor)
        default: throw StoreError("redis: unexpected recovery")
        }
    }

    /// The lock durations in milliseconds, comma separated, the n-th for the n-th lock in a row
    /// (``TOTPFactor/lockDuration(forLock:)``), so the scripts follow the one rule.
    static let lockSchedule = Array(
        (1...(TOTPFactor.maxLockDoublings + 1)).map {
            String(StoreTime.milliseconds(TOTPFactor.lockDuration(forLock: $0)))
        }
        .joined(separator: ",").utf8)

    /// Replaces the recovery codes in one script.
    public func replaceRecoveryCodes(id: String, hashes: [[UInt8]]) async throws(StoreError) -> TOTPFactor? {
        let reply = try await evaluate(
            RedisScripts.replaceRecoveryCodes, keys: [factorKey(id)],
            arguments: [TOTPFactor.concatenated(hashes)])
        let (outcome, _, fields) = try Self.parse(reply)
        return outcome == "notFound" ? nil : try Self.factor(from: fields)
    }

    /// Deletes a factor.
    public func deleteFactor(id: String) async throws(StoreError) -> Bool {
        let key = factorKey(id)
        let reply = try await run { connection throws(StoreError) in try connection.command("DEL", key) }
        guard case .integer(let count) = reply else { throw Self.failure(reply) }
        return count > 0
    }

    private static func factor(from fields: RedisFields) throws(StoreError) -> TOTPFactor {
        guard let id = fields["id"].map(text), let account = fields["acc"].map(text),
            let issuer = fields["iss"].map(text), let sealed = fields["sec"],
            let status = fields["st"].map(text).flatMap(TOTPFactor.Status.init(rawValue:)),
            let failures = fields["f"].flatMap(number), let created = fields["cat"].flatMap(number)
        else { throw StoreError("redis: malformed factor") }
        guard let recovery = TOTPFactor.recoveryHashes(concatenated: fields["rc"] ?? []),
            let used = TOTPFactor.recoveryHashes(concatenated: fields["urc"] ?? [])
        else {
            throw StoreError("redis: malformed factor")
        }
        let last = fields["ls"].flatMap { $0.isEmpty ? nil : number($0) }
        return TOTPFactor(
            id: id, account: account, issuer: issuer, sealedSecret: sealed, status: status,
            lastUsedStep: last,
            failures: Int(failures), recoveryHashes: recovery,
            createdAt: StoreTime.date(milliseconds: created),
            lockedUntil: fields["lku"].flatMap { $0.isEmpty ? nil : number($0) }.map {
                StoreTime.date(milliseconds: $0)
            },
            locks: Int(fields["lks"].flatMap(number) ?? 0), usedRecoveryHashes: used)
    }

    // MARK: - LifecycleEventStore

    /// Hands out each due verification's oldest undelivered event, leased until `leaseUntil`, in one script.
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
            else { throw StoreError("redis: malformed event") }
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

    /// Counts a failed delivery and sets the next try.
    public func eventFailed(id: String, retryAt: Date) async throws(StoreError) {
        let reply = try await evaluate(
            RedisScripts.eventFailed, keys: [],
            arguments: [Array(prefix.utf8), Array(id.utf8), Self.time(retryAt)])
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
        case .string(let bytes): return Int(Self.number(bytes) ?? 0)
        default: throw Self.failure(reply)
        }
    }

    private func transition(_ reply: RedisValue) throws(StoreError) -> TransitionOutcome {
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

    private func evaluate(
        _ script: RedisScript, keys: [String], arguments: [[UInt8]]
    ) async throws(StoreError)
        -> RedisValue
    {
        try await evaluate(RedisConnection.Evaluation(script: script, keys: keys, arguments: arguments))
    }

    /// Runs a script run on the next connection's queue, sharing its pipeline.
    private func evaluate(_ evaluation: RedisConnection.Evaluation) async throws(StoreError) -> RedisValue {
        let outcome: Result<RedisValue, StoreError> = await withCheckedContinuation { continuation in
            submit(.evaluate(evaluation)) { continuation.resume(returning: $0) }
        }
        return try outcome.get()
    }

    /// Runs `body` on the next connection's queue.
    private func run(
        _ body: @escaping @Sendable (RedisConnection) throws(StoreError) -> RedisValue
    )
        async throws(StoreError) -> RedisValue
    {
        let outcome: Result<RedisValue, StoreError> = await withCheckedContinuation { continuation in
            submit(.body(body)) { continuation.resume(returning: $0) }
        }
        return try outcome.get()
    }

    /// Queues work on the next connection; `completion` runs on that connection's queue.
    ///
    /// Scripts that wait together go out as one pipeline: written at once, their replies read in
    /// order, so a busy server pays one write and a few reads for many checks instead of a round
    /// trip each. Each script is still one atomic `EVALSHA` in Redis. (Internal for the tests that
    /// hold a connection's queue to make scripts wait together.)
    func submit(
        _ work: RedisCall.Work, completion: @escaping @Sendable (Result<RedisValue, StoreError>) -> Void
    ) {
        let lane = pool[next.increment() % pool.count]
        // One timeout for the whole call, the wait for the connection's queue included.
        let due = ContinuousClock.now.advanced(by: .milliseconds(RedisConnection.timeoutMilliseconds))
        let call = RedisCall(work: work, due: due, completion: completion)
        let first = lane.pending.withLock { (calls: inout [RedisCall]) -> Bool in
            calls.append(call)
            return calls.count == 1
        }
        if first { lane.queue.async { Self.drain(lane) } }
    }

    /// The most scripts one pipeline holds.
    private static let pipelineLimit = 256

    /// Runs every call waiting for a lane, in order, on its queue.
    private static func drain(_ lane: Lane) {
        let waiting = lane.pending.withLock { (calls: inout [RedisCall]) -> [RedisCall] in
            defer { calls.removeAll(keepingCapacity: true) }
            return calls
        }
        let now = ContinuousClock.now
        var calls: [RedisCall] = []
        for call in waiting {
            if call.due <= now {
                call.completion(.failure(StoreError("redis: timed out")))
            } else {
                calls.append(call)
            }
        }
        let connection = lane.connection
        var index = 0
        while index < calls.count {
            defer { connection.deadline = nil }
            if case .body(let body) = calls[index].work {
                connection.deadline = calls[index].due
                calls[index].completion(Result { () throws(StoreError) in try body(connection) })
                index += 1
                continue
            }
            var evaluations: [RedisConnection.Evaluation] = []
            var end = index
            while end < calls.count, evaluations.count < pipelineLimit,
                case .evaluate(let evaluation) = calls[end].work
            {
                evaluations.append(evaluation)
                end += 1
            }
            // The youngest call bounds the pipeline's time: bounded by the oldest, one call near its
            // deadline would fail every other call written with it.
            connection.deadline = calls[index..<end].map(\.due).max()
            for (call, result) in zip(calls[index..<end], connection.evaluateAll(evaluations)) {
                call.completion(result)
            }
            index = end
        }
    }

    private static func time(_ date: Date) -> [UInt8] {
        Array(String(StoreTime.milliseconds(date)).utf8)
    }

    private static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    private static func number(_ bytes: [UInt8]) -> Int64? {
        Int64(String(decoding: bytes, as: UTF8.self))
    }

    private static func failure(_ reply: RedisValue) -> StoreError {
        if case .error(let message) = reply { return StoreError("redis: \(message)") }
        return StoreError("redis: unexpected reply")
    }

    private static func pairs(_ flat: some Collection<RedisValue>) -> RedisFields {
        RedisFields(flat)
    }

    /// Splits a script's reply into its outcome, its extra value and the record's fields.
    private static func parse(_ reply: RedisValue) throws(StoreError) -> (String, [UInt8], RedisFields) {
        guard case .array(let parts) = reply, parts.count >= 2, let outcome = parts[0].text,
            case .string(let extra) = parts[1]
        else { throw failure(reply) }
        return (outcome, extra, pairs(parts.dropFirst(2)))
    }

    private static func fields(of record: VerificationRecord) -> [[UInt8]] {
        let pairs: [(String, [UInt8])] = [
            ("id", Array(record.id.utf8)), ("ch", Array(record.channel.rawValue.utf8)),
            ("dst", Array(record.destination.utf8)), ("len", Array(String(record.codeLength).utf8)),
            ("hash", record.codeHash), ("st", Array(record.state.rawValue.utf8)),
            ("att", Array(String(record.attemptsLeft).utf8)), ("sent", Array(String(record.sendsUsed).utf8)),
            ("cat", time(record.createdAt)), ("exp", time(record.expiresAt)),
            ("rav", record.resendAvailableAt.map(time) ?? []), ("pur", time(record.purgeAt)),
            ("lt", Array((record.resendLease?.token ?? "").utf8)),
            ("lu", record.resendLease.map { time($0.until) } ?? []),
            ("loc", Array((record.locale ?? "").utf8)), ("ref", Array((record.ref ?? "").utf8)),
            ("txn", Array((record.transaction?.canonicalJSON ?? "").utf8)),
        ]
        return pairs.flatMap { [Array($0.0.utf8), $0.1] }
    }

    /// A resend's lease from its stored token and end, or `nil` when none is held.
    private static func lease(token: [UInt8]?, until: [UInt8]?) -> ResendLease? {
        guard let token, !token.isEmpty, let until = until.flatMap(number) else { return nil }
        return ResendLease(token: text(token), until: StoreTime.date(milliseconds: until))
    }

    private static func record(from fields: RedisFields) throws(StoreError) -> VerificationRecord {
        guard let id = fields["id"].map(text),
            let channel = fields["ch"].map(text).flatMap(Channel.init(rawValue:)),
            let destination = fields["dst"].map(text), let length = fields["len"].flatMap(number),
            let hash = fields["hash"],
            let state = fields["st"].map(text).flatMap(VerificationRecord.State.init(rawValue:)),
            let attempts = fields["att"].flatMap(number), let sends = fields["sent"].flatMap(number),
            let created = fields["cat"].flatMap(number), let expires = fields["exp"].flatMap(number),
            let purge = fields["pur"].flatMap(number)
        else { throw StoreError("redis: malformed verification") }
        let lease = Self.lease(token: fields["lt"], until: fields["lu"])
        return VerificationRecord(
            id: id, channel: channel, destination: destination, codeLength: Int(length), codeHash: hash,
            state: state,
            attemptsLeft: Int(attempts), sendsUsed: Int(sends),
            createdAt: StoreTime.date(milliseconds: created),
            expiresAt: StoreTime.date(milliseconds: expires),
            resendAvailableAt: fields["rav"].flatMap(number).map { StoreTime.date(milliseconds: $0) },
            purgeAt: StoreTime.date(milliseconds: purge), resendLease: lease,
            locale: fields["loc"].map(text).flatMap { $0.isEmpty ? nil : $0 },
            ref: fields["ref"].map(text).flatMap { $0.isEmpty ? nil : $0 },
            transaction: try fields["txn"].map(text).flatMap { $0.isEmpty ? nil : $0 }.map(
                TransactionDetails.stored))
    }
}

/// A counter shared by concurrent callers.
private final class Counter: @unchecked Sendable {
    // Guards `value`.
    private let lock = NSLock()
    private var value = 0

    func increment() -> Int {
        lock.withLock {
            value &+= 1
            return value & Int.max
        }
    }
}

/// One connection, its queue, and the calls waiting for it.
private final class Lane: Sendable {
    let connection: RedisConnection
    let queue: DispatchQueue
    let pending = Locked<[RedisCall]>([])

    init(connection: RedisConnection, queue: DispatchQueue) {
        self.connection = connection
        self.queue = queue
    }
}

/// A call waiting for a connection.
struct RedisCall: Sendable {
    enum Work: Sendable {
        /// One script run, which may share a pipeline with others.
        case evaluate(RedisConnection.Evaluation)
        /// Commands of their own.
        case body(@Sendable (RedisConnection) throws(StoreError) -> RedisValue)
    }

    let work: Work
    let due: ContinuousClock.Instant
    let completion: @Sendable (Result<RedisValue, StoreError>) -> Void
}

/// A reply's field–value pairs (`[field, value, …]`), found by name.
///
/// A reply holds a dozen or so fields: comparing short names costs less than hashing each into a
/// dictionary and hashing it again to read it (on a Redis check that hashing was a tenth of the
/// server's work). A name given twice reads as its last value, as a dictionary built in order would.
struct RedisFields {
    private var names: [String] = []
    private var values: [[UInt8]] = []

    init(_ flat: some Collection<RedisValue>) {
        names.reserveCapacity(flat.count / 2)
        values.reserveCapacity(flat.count / 2)
        var index = flat.startIndex
        while index != flat.endIndex {
            let next = flat.index(after: index)
            guard next != flat.endIndex else { break }
            if let name = flat[index].text, case .string(let value) = flat[next] {
                names.append(name)
                values.append(value)
            }
            index = flat.index(after: next)
        }
    }

    /// The value of `name`, or `nil` when the reply has no such field.
    subscript(name: String) -> [UInt8]? {
        names.lastIndex(of: name).map { values[$0] }
    }
}
