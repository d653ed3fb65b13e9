import Foundation
import OTPCore
import OTPEngine
import Testing

/// The rules every store must keep, written once and run against each ``StoreKind``.
@Suite struct StoreConformanceTests {
    static let t0 = StoreTime.date(milliseconds: 1_795_000_000_000)

    static func at(_ seconds: Double) -> Date {
        StoreTime.date(milliseconds: 1_795_000_000_000 + Int64(seconds * 1000))
    }

    static func sample(
        _ id: String = "vf_sample", attempts: Int = 3, sends: Int = 1, resendAt: Date? = at(30),
        lease: ResendLease? = nil
    ) -> VerificationRecord {
        VerificationRecord(
            id: id, channel: .sms, destination: "+15555550100", codeLength: 6,
            codeHash: Array(repeating: 0xAB, count: 32),
            state: .pending, attemptsLeft: attempts, sendsUsed: sends, createdAt: t0, expiresAt: at(300),
            resendAvailableAt: resendAt, purgeAt: at(300 + 86_400), resendLease: lease)
    }

    @Test("a record reads back exactly as stored", arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        var email = Self.sample(
            "vf_email", resendAt: nil, lease: ResendLease(token: "tok", until: Self.at(90)))
        email.channel = .email
        email.destination = "Ana@example.org"
        email.codeHash = Array(0..<32)
        email.codeLength = 8
        email.state = .canceled
        for record in [Self.sample(), email] {
            #expect(try await store.insert(record, claim: nil, now: Self.t0) == .inserted)
            #expect(try await store.record(id: record.id) == record)
        }
        #expect(try await store.record(id: "vf_missing") == nil)
    }

    @Test("every step on an unknown verification answers not found", arguments: StoreKind.allCases)
    func unknown(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        #expect(try await store.check(id: "vf_none", candidateHash: [1], now: Self.t0) == .notFound)
        #expect(try await store.cancel(id: "vf_none", now: Self.t0) == .notFound)
        let lease = ResendLease(token: "t", until: Self.at(60))
        #expect(
            try await store.beginResend(id: "vf_none", lease: lease, maxSends: 5, now: Self.t0) == .notFound)
        let update = CodeUpdate(
            codeHash: [1], attemptsLeft: 3, sendsUsed: 2, expiresAt: Self.at(300), resendAvailableAt: nil,
            purgeAt: Self.at(900))
        #expect(
            try await store.finishResend(id: "vf_none", token: "t", update: update, now: Self.at(95))
                == .notFound)
        try await store.abandonResend(id: "vf_none", token: "t")
        #expect(try await store.record(id: "vf_none") == nil)
    }

    @Test(
        "an idempotency key replays while live, frees at expiry, and is released only by its owner",
        arguments: StoreKind.allCases)
    func idempotency(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let claim = IdempotencyClaim(key: "key", fingerprint: "fp", expiresAt: Self.at(300))
        #expect(try await store.insert(Self.sample("vf_a"), claim: claim, now: Self.t0) == .inserted)
        let entry = IdempotencyEntry(verificationID: "vf_a", fingerprint: "fp", expiresAt: Self.at(300))
        #expect(try await store.idempotencyEntry(key: "key", now: Self.at(299.999)) == entry)
        #expect(try await store.idempotencyEntry(key: "other", now: Self.t0) == nil)

        // A live key wins: nothing is stored for the second verification.
        let second = IdempotencyClaim(key: "key", fingerprint: "fp2", expiresAt: Self.at(400))
        #expect(
            try await store.insert(Self.sample("vf_b"), claim: second, now: Self.at(100)) == .replay(entry))
        #expect(try await store.record(id: "vf_b") == nil)

        // At expiry the key is free.
        #expect(try await store.idempotencyEntry(key: "key", now: Self.at(300)) == nil)
        #expect(try await store.insert(Self.sample("vf_c"), claim: second, now: Self.at(300)) == .inserted)
        #expect(try await store.idempotencyEntry(key: "key", now: Self.at(300))?.verificationID == "vf_c")

        // Only the owner releases it.
        try await store.releaseIdempotencyKey("key", verificationID: "vf_a")
        #expect(try await store.idempotencyEntry(key: "key", now: Self.at(300)) != nil)
        try await store.releaseIdempotencyKey("key", verificationID: "vf_c")
        #expect(try await store.idempotencyEntry(key: "key", now: Self.at(300)) == nil)
    }

    @Test(
        "a wrong code judges state, expiry before lock, and counts down", arguments: StoreKind.allCases)
    func attempts(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        _ = try await store.insert(Self.sample(attempts: 2), claim: nil, now: Self.t0)
        let wrong = Array(repeating: UInt8(0xCD), count: 32)
        #expect(
            try await store.check(id: "vf_sample", candidateHash: wrong, now: Self.at(1))
                == .incorrect(attemptsLeft: 1))
        #expect(try await store.record(id: "vf_sample")?.codeHash == Self.sample().codeHash)
        #expect(
            try await store.check(id: "vf_sample", candidateHash: wrong, now: Self.at(2))
                == .incorrect(attemptsLeft: 0))
        // Locked: the right code no longer counts.
        let right = Self.sample().codeHash
        #expect(try await store.check(id: "vf_sample", candidateHash: right, now: Self.at(3)) == .locked)
        #expect(
            try await store.check(id: "vf_sample", candidateHash: wrong, now: Self.at(300))
                == .expired(attemptsLeft: 0),
            "expiry wins over lock")
        #expect(try await store.record(id: "vf_sample")?.attemptsLeft == 0)
        #expect(try await store.record(id: "vf_sample")?.state == .pending)

        _ = try await store.insert(Self.sample("vf_expired"), claim: nil, now: Self.t0)
        #expect(
            try await store.check(id: "vf_expired", candidateHash: right, now: Self.at(300))
                == .expired(attemptsLeft: 3))
        #expect(try await store.record(id: "vf_expired")?.attemptsLeft == 3)
    }

    @Test("a right code approves and cancel moves only a pending verification", arguments: StoreKind.allCases)
    func transitions(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        _ = try await store.insert(Self.sample("vf_a"), claim: nil, now: Self.t0)
        _ = try await store.insert(Self.sample("vf_c"), claim: nil, now: Self.t0)
        let right = Self.sample().codeHash
        guard
            case .approved(let approved) = try await store.check(
                id: "vf_a", candidateHash: right, now: Self.at(1))
        else {
            Issue.record("not approved")
            return
        }
        #expect(approved.state == .approved)
        #expect(approved.attemptsLeft == 2)
        #expect(try await store.record(id: "vf_a") == approved)
        #expect(
            try await store.check(id: "vf_a", candidateHash: right, now: Self.at(2))
                == .notPending(attemptsLeft: 2))
        #expect(try await store.cancel(id: "vf_a", now: Self.at(2)) == .notPending(approved))
        guard case .done(let canceled) = try await store.cancel(id: "vf_c", now: Self.at(2)) else {
            Issue.record("not canceled")
            return
        }
        #expect(canceled.state == .canceled)
        #expect(
            try await store.check(id: "vf_c", candidateHash: right, now: Self.at(3))
                == .notPending(attemptsLeft: canceled.attemptsLeft))
        #expect(try await store.record(id: "vf_c") == canceled)
    }

    @Test(
        "a resend lease has one holder, waits for the cooldown and sends left, and lapses",
        arguments: StoreKind.allCases)
    func resendLeases(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        _ = try await store.insert(Self.sample(attempts: 0), claim: nil, now: Self.t0)
        let first = ResendLease(token: "first", until: Self.at(90))
        guard
            case .tooSoon(_, let until) = try await store.beginResend(
                id: "vf_sample", lease: first, maxSends: 5, now: Self.at(29.999))
        else {
            Issue.record("cooldown ignored")
            return
        }
        #expect(until == Self.at(30))
        guard
            case .begun(let begun) = try await store.beginResend(
                id: "vf_sample", lease: first, maxSends: 5, now: Self.at(30))
        else {
            Issue.record("lease not granted")
            return
        }
        #expect(begun.resendLease == first)
        let second = ResendLease(token: "second", until: Self.at(100))
        guard
            case .tooSoon(_, let held) = try await store.beginResend(
                id: "vf_sample", lease: second, maxSends: 5, now: Self.at(31))
        else {
            Issue.record("a second lease was granted")
            return
        }
        #expect(held == Self.at(90))

        // Abandoning with the wrong token changes nothing; with the right one it frees the lease.
        try await store.abandonResend(id: "vf_sample", token: "second")
        #expect(try await store.record(id: "vf_sample")?.resendLease == first)
        try await store.abandonResend(id: "vf_sample", token: "first")
        #expect(try await store.record(id: "vf_sample")?.resendLease == nil)

        // A lapsed lease can be taken over, and the old holder's finish is refused.
        _ = try await store.beginResend(id: "vf_sample", lease: first, maxSends: 5, now: Self.at(31))
        guard
            case .begun = try await store.beginResend(
                id: "vf_sample", lease: second, maxSends: 5, now: Self.at(90))
        else {
            Issue.record("a lapsed lease was not taken over")
            return
        }
        let update = CodeUpdate(
            codeHash: Array(repeating: 0xCD, count: 32), attemptsLeft: 3, sendsUsed: 2,
            expiresAt: Self.at(390),
            resendAvailableAt: Self.at(150), purgeAt: Self.at(390 + 86_400))
        guard
            case .leaseLost = try await store.finishResend(
                id: "vf_sample", token: "first", update: update, now: Self.at(95))
        else {
            Issue.record("a lost lease finished")
            return
        }
        guard
            case .done(let done) = try await store.finishResend(
                id: "vf_sample", token: "second", update: update, now: Self.at(95))
        else {
            Issue.record("the holder could not finish")
            return
        }
        #expect(done.codeHash == update.codeHash)
        #expect(done.attemptsLeft == 3)
        #expect(done.sendsUsed == 2)
        #expect(done.expiresAt == update.expiresAt)
        #expect(done.resendAvailableAt == update.resendAvailableAt)
        #expect(done.purgeAt == update.purgeAt)
        #expect(done.resendLease == nil)
        #expect(try await store.record(id: "vf_sample") == done)

        // Every send used.
        guard
            case .maxSendsReached = try await store.beginResend(
                id: "vf_sample", lease: first, maxSends: 2, now: Self.at(200))
        else {
            Issue.record("max sends ignored")
            return
        }
        // A canceled verification cannot finish a resend in progress.
        _ = try await store.beginResend(id: "vf_sample", lease: first, maxSends: 5, now: Self.at(200))
        _ = try await store.cancel(id: "vf_sample", now: Self.at(200))
        guard
            case .notPending = try await store.finishResend(
                id: "vf_sample", token: "first", update: update, now: Self.at(95))
        else {
            Issue.record("a canceled verification took a new code")
            return
        }
        guard
            case .notPending = try await store.beginResend(
                id: "vf_sample", lease: first, maxSends: 5, now: Self.at(300))
        else {
            Issue.record("a canceled verification began a resend")
            return
        }
    }

    @Test(
        "rate permits: a burst of the limit, then the wait, all or none, and refunds",
        arguments: StoreKind.allCases)
    func ratePermits(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let three = RatePermit(key: "ca:x", limit: RateLimit(limit: 3, window: .seconds(300)))
        let one = RatePermit(key: "sd:y", limit: RateLimit(limit: 1, window: .seconds(3600)))
        for _ in 0..<3 {
            #expect(try await store.acquire([three], now: Self.t0) == .allowed)
        }
        #expect(
            try await store.acquire([three], now: Self.t0) == .denied(waitMilliseconds: 100_000, key: "ca:x"))
        #expect(
            try await store.acquire([three], now: Self.at(99.999))
                == .denied(waitMilliseconds: 1, key: "ca:x"))
        #expect(try await store.acquire([three], now: Self.at(100)) == .allowed)

        // All or none: `one` is free but `three` is not, so `one` stays free.
        #expect(
            try await store.acquire([one, three], now: Self.at(100))
                == .denied(waitMilliseconds: 100_000, key: "ca:x"))
        #expect(try await store.acquire([one], now: Self.at(100)) == .allowed)
        #expect(
            try await store.acquire([one, three], now: Self.at(100))
                == .denied(waitMilliseconds: 3_600_000, key: "sd:y"))

        // A refund gives one request back.
        try await store.release([one], now: Self.at(100))
        #expect(try await store.acquire([one], now: Self.at(100)) == .allowed)
        try await store.release([RatePermit(key: "never-used", limit: one.limit)], now: Self.at(100))
        #expect(
            try await store.acquire([RatePermit(key: "never-used", limit: one.limit)], now: Self.at(100))
                == .allowed)

        // Keys are independent.
        #expect(
            try await store.acquire([RatePermit(key: "ca:z", limit: three.limit)], now: Self.at(100))
                == .allowed)
    }

    @Test(
        "ten permits at once, one key twice among them, decide as RatePermit.admitAll decides",
        arguments: StoreKind.allCases)
    func manyPermits(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        // The model every store follows: admitAll over stored arrivals, then each new arrival stored.
        var arrivals: [String: Int64] = [:]
        func modelAcquire(_ permits: [RatePermit], now: Date) -> RateDecision {
            let (decision, taken) = RatePermit.admitAll(permits, now: StoreTime.milliseconds(now)) {
                arrivals[$0]
            }
            for (key, arrival) in taken { arrivals[key] = arrival }
            return decision
        }
        let limit = RateLimit(limit: 2, window: .seconds(300))
        let keys = (0..<10).map { "ca:many\($0)" }
        let all = keys.map { RatePermit(key: $0, limit: limit) } + [RatePermit(key: keys[0], limit: limit)]
        let single = [RatePermit(key: keys[5], limit: limit)]
        var decisions: [RateDecision] = []
        var expected: [RateDecision] = []
        for step in 0..<8 {
            let permits = step % 3 == 2 ? single : all
            decisions.append(try await store.acquire(permits, now: Self.at(Double(step * 40))))
            expected.append(modelAcquire(permits, now: Self.at(Double(step * 40))))
        }
        #expect(decisions == expected)
        #expect(expected.contains(.allowed) && expected.contains { $0 != .allowed }, "the script meets both")
    }

    @Test("parallel permits never pass more than the limit", arguments: StoreKind.allCases)
    func parallelPermits(kind: StoreKind) async throws {
        let stores = try await kind.makeStores(count: 3)
        let permit = RatePermit(key: "ca:burst", limit: RateLimit(limit: 25, window: .seconds(300)))
        let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<100 {
                group.addTask { try await stores[index % 3].acquire([permit], now: Self.t0) == .allowed }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(allowed == 25)
    }

    @Test(
        "purging deletes records past their time, and keys and counters past theirs",
        arguments: StoreKind.allCases)
    func purge(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        var old = Self.sample("vf_old")
        old.purgeAt = Self.at(1000)
        _ = try await store.insert(
            old, claim: IdempotencyClaim(key: "k", fingerprint: "f", expiresAt: Self.at(300)), now: Self.t0)
        _ = try await store.insert(Self.sample("vf_new"), claim: nil, now: Self.t0)
        _ = try await store.acquire(
            [RatePermit(key: "r", limit: RateLimit(limit: 1, window: .seconds(60)))], now: Self.t0)
        #expect(try await store.purgeExpired(now: Self.at(999)) == 0)
        #expect(try await store.record(id: "vf_old") != nil)
        #expect(try await store.purgeExpired(now: Self.at(1000)) == 1)
        #expect(try await store.record(id: "vf_old") == nil)
        #expect(try await store.record(id: "vf_new") != nil)
        #expect(try await store.idempotencyEntry(key: "k", now: Self.t0) == nil)
    }

    @Test("a working store answers ping", arguments: StoreKind.allCases)
    func ping(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        #expect(await store.ping())
    }

    @Test(
        "after shutdown every call throws a store error and ping is false; a second shutdown does nothing",
        arguments: StoreKind.allCases)
    func shutdown(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        _ = try await store.insert(Self.sample("vf_closing"), claim: nil, now: Self.t0)
        await store.shutdown()
        #expect(await !store.ping())
        await #expect(throws: StoreError.self) { try await store.record(id: "vf_closing") }
        await #expect(throws: StoreError.self) {
            try await store.insert(Self.sample("vf_after"), claim: nil, now: Self.t0)
        }
        await #expect(throws: StoreError.self) {
            try await store.check(id: "vf_closing", candidateHash: [1], now: Self.t0)
        }
        await #expect(throws: StoreError.self) {
            try await store.acquire(
                [RatePermit(key: "r", limit: RateLimit(limit: 1, window: .seconds(60)))], now: Self.t0)
        }
        await #expect(throws: StoreError.self) { try await store.purgeExpired(now: Self.t0) }
        await store.shutdown()
        #expect(await !store.ping())
    }

    @Test(
        "nothing is purged until purgeExpired runs, however many inserts come", arguments: StoreKind.allCases)
    func noPurgeOnInsert(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        var old = Self.sample("vf_stale")
        old.purgeAt = Self.at(100)
        _ = try await store.insert(old, claim: nil, now: Self.t0)
        for index in 0..<300 {
            _ = try await store.insert(Self.sample("vf_fill_\(index)"), claim: nil, now: Self.at(100))
        }
        #expect(try await store.record(id: "vf_stale") != nil)
        #expect(try await store.purgeExpired(now: Self.at(100)) == 1)
    }

    @Test(
        "a check is one step: refusals take nothing, a wrong code takes an attempt and its permits, a right one approves and refunds",
        arguments: StoreKind.allCases)
    func checkInOneStep(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        _ = try await store.insert(Self.sample("vf_check"), claim: nil, now: Self.t0)
        let perAddress = RatePermit(key: "ca:check", limit: RateLimit(limit: 10, window: .seconds(300)))
        let failed = RatePermit(key: "fd:check", limit: RateLimit(limit: 2, window: .seconds(3600)))
        let wrong = CheckStep(
            id: "vf_check", candidateHash: Array(repeating: 0xCD, count: 32), permits: [perAddress, failed],
            refundsOnApproval: [failed])
        for left in [2, 1] {
            let outcome = try await store.check(wrong, now: Self.t0)
            #expect(outcome == .incorrect(attemptsLeft: left))
        }
        // The failed-check permit is spent: refused, and nothing taken (the attempt stays).
        let limited = try await store.check(wrong, now: Self.t0)
        #expect(limited == .rateLimited(waitMilliseconds: 1_800_000, key: "fd:check", attemptsLeft: 1))

        let budget = RatePermit(key: "fd:refund", limit: RateLimit(limit: 1, window: .seconds(3600)))
        let right = CheckStep(
            id: "vf_check", candidateHash: Array(repeating: 0xAB, count: 32), permits: [perAddress, budget],
            refundsOnApproval: [budget])
        let approved = try await store.check(right, now: Self.t0)
        guard case .approved(let done) = approved else {
            Issue.record("expected approved, got \(approved)")
            return
        }
        #expect(done.state == .approved)
        #expect(done.attemptsLeft == 0)
        #expect(try await store.record(id: "vf_check")?.state == .approved)
        // The refund gave the one failed-check permit back.
        #expect(try await store.acquire([budget], now: Self.t0) == .allowed)
        guard case .notPending = try await store.check(right, now: Self.t0) else {
            Issue.record("an approved verification was checked again")
            return
        }
        #expect(
            try await store.check(
                CheckStep(id: "vf_none", candidateHash: [], permits: [], refundsOnApproval: []),
                now: Self.t0) == .notFound)

        var old = Self.sample("vf_old_check")
        old.expiresAt = Self.at(10)
        _ = try await store.insert(old, claim: nil, now: Self.t0)
        let untouched = RatePermit(key: "ca:untouched", limit: RateLimit(limit: 1, window: .seconds(60)))
        let late = CheckStep(
            id: "vf_old_check", candidateHash: old.codeHash, permits: [untouched], refundsOnApproval: [])
        #expect(try await store.check(late, now: Self.at(11)) == .expired(attemptsLeft: 3))
        #expect(try await store.acquire([untouched], now: Self.at(11)) == .allowed)
    }

    @Test(
        "every check answers the record as stored, when another handle leases, resends or approves between checks",
        arguments: StoreKind.allCases)
    func checksAcrossHandles(kind: StoreKind) async throws {
        let stores = try await kind.makeStores(count: 2)
        let (checking, other) = (stores[0], stores[1])
        _ = try await checking.insert(Self.sample("vf_handles", attempts: 6), claim: nil, now: Self.t0)
        let wrong = CheckStep(
            id: "vf_handles", candidateHash: Array(repeating: 0xCD, count: 32), permits: [],
            refundsOnApproval: [])
        // Each wrong check answers the attempts left that the store then holds.
        func expectIncorrect(at now: Date, attemptsLeft: Int) async throws {
            let outcome = try await checking.check(wrong, now: now)
            let stored = try #require(try await other.record(id: "vf_handles"))
            #expect(outcome == .incorrect(attemptsLeft: attemptsLeft))
            #expect(stored.attemptsLeft == attemptsLeft)
        }
        try await expectIncorrect(at: Self.at(1), attemptsLeft: 5)
        try await expectIncorrect(at: Self.at(2), attemptsLeft: 4)

        // A lease taken elsewhere shows in the next answer, and so does its end.
        let lease = ResendLease(token: "tok-handles", until: Self.at(60))
        guard
            case .begun = try await other.beginResend(
                id: "vf_handles", lease: lease, maxSends: 5, now: Self.at(40))
        else {
            Issue.record("the resend did not begin")
            return
        }
        try await expectIncorrect(at: Self.at(41), attemptsLeft: 3)

        // A new code sent elsewhere: its hash, times, sends and attempts are what the next check answers.
        let update = CodeUpdate(
            codeHash: Array(repeating: 0xEF, count: 32), attemptsLeft: 4, sendsUsed: 2,
            expiresAt: Self.at(500),
            resendAvailableAt: Self.at(100), purgeAt: Self.at(500 + 86_400))
        guard
            case .done = try await other.finishResend(
                id: "vf_handles", token: "tok-handles", update: update, now: Self.at(42))
        else {
            Issue.record("the resend did not finish")
            return
        }
        try await expectIncorrect(at: Self.at(43), attemptsLeft: 3)
        try await expectIncorrect(at: Self.at(44), attemptsLeft: 2)
        // The old code no longer works; a check past the old expiry is judged by the new one.
        try await expectIncorrect(at: Self.at(400), attemptsLeft: 1)

        // Approved elsewhere with the new code: the next check is refused.
        guard
            case .approved = try await other.check(
                id: "vf_handles", candidateHash: update.codeHash, now: Self.at(401))
        else {
            Issue.record("the approval failed")
            return
        }
        #expect(try await checking.check(wrong, now: Self.at(402)) == .notPending(attemptsLeft: 0))
        #expect(try await checking.record(id: "vf_handles")?.state == .approved)
    }

    @Test(
        "a candidate hash that differs from the kept one in any one byte, or in length, is a wrong code",
        arguments: StoreKind.allCases)
    func nearMisses(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let kept = Array(0..<UInt8(32))
        var near: [[UInt8]] = []
        for position in [0, 1, 15, 30, 31] {
            for change: UInt8 in [1, 0x80, 0xFF] {
                var candidate = kept
                candidate[position] ^= change
                near.append(candidate)
            }
        }
        near += [Array(kept.prefix(31)), kept + [0], [], Array(kept.dropFirst())]
        var record = Self.sample("vf_near", attempts: near.count + 1)
        record.codeHash = kept
        _ = try await store.insert(record, claim: nil, now: Self.t0)
        for (index, candidate) in near.enumerated() {
            let outcome = try await store.check(
                CheckStep(id: "vf_near", candidateHash: candidate, permits: [], refundsOnApproval: []),
                now: Self.t0)
            #expect(
                outcome == .incorrect(attemptsLeft: near.count - index),
                "candidate \(index) (\(candidate.count) bytes)")
        }
        let right = try await store.check(
            CheckStep(id: "vf_near", candidateHash: kept, permits: [], refundsOnApproval: []), now: Self.t0
        )
        guard case .approved = right else {
            Issue.record("the kept hash itself was judged \(right)")
            return
        }
    }
}
