import Foundation
import OTPCore
import OTPEngine
import Testing

/// The authenticator-factor rules every store keeps, atomically.
@Suite struct TOTPStoreTests {
    typealias T = StoreConformanceTests

    static func factor(
        _ id: String = "tf_sample", recovery: Int = 3, status: TOTPFactor.Status = .unconfirmed
    ) -> TOTPFactor {
        TOTPFactor(
            id: id, account: "alice@example.org", issuer: "Example", sealedSecret: Array(0..<44),
            status: status,
            recoveryHashes: (0..<recovery).map { Array(repeating: UInt8($0 + 1), count: 32) }, createdAt: T.t0
        )
    }

    /// `seconds` after the suite's start time.
    static func at(_ seconds: Double) -> Date { T.t0.addingTimeInterval(seconds) }

    static func store(_ kind: StoreKind) async throws -> any TOTPFactorStore {
        try #require(try await kind.makeStore() as? any TOTPFactorStore)
    }

    @Test(
        "a factor reads back exactly as stored; an unknown one is nil everywhere",
        arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        try await store.insertFactor(Self.factor())
        #expect(try await store.factor(id: "tf_sample") == Self.factor())
        let bare = Self.factor("tf_bare", recovery: 0)
        try await store.insertFactor(bare)
        #expect(try await store.factor(id: "tf_bare") == bare)
        #expect(try await store.factor(id: "tf_none") == nil)
        #expect(
            try await store.judgeFactor(id: "tf_none", matchedStep: 1, maxFailures: 5, now: T.t0) == .notFound
        )
        #expect(
            try await store.recoverFactor(id: "tf_none", hash: [], maxFailures: 5, now: T.t0) == .notFound)
        #expect(try await store.replaceRecoveryCodes(id: "tf_none", hashes: []) == nil)
        #expect(try await store.deleteFactor(id: "tf_none") == false)
    }

    @Test(
        "the first right code confirms; a step is accepted once; wrong codes count to the lock",
        arguments: StoreKind.allCases)
    func judging(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        try await store.insertFactor(Self.factor())
        guard
            case .incorrect(let wrong) = try await store.judgeFactor(
                id: "tf_sample", matchedStep: nil, maxFailures: 3, now: T.t0)
        else {
            Issue.record("not incorrect")
            return
        }
        #expect(wrong.failures == 1)
        guard
            case .accepted(let first, let confirmed) = try await store.judgeFactor(
                id: "tf_sample", matchedStep: 100, maxFailures: 3, now: T.t0)
        else {
            Issue.record("not accepted")
            return
        }
        #expect(confirmed)
        #expect(first.status == .active)
        #expect(first.failures == 0)
        #expect(first.lastUsedStep == 100)
        #expect(
            try await store.judgeFactor(id: "tf_sample", matchedStep: 100, maxFailures: 3, now: T.t0)
                == .alreadyUsed(first))
        #expect(
            try await store.judgeFactor(id: "tf_sample", matchedStep: 99, maxFailures: 3, now: T.t0)
                == .alreadyUsed(first))
        guard
            case .accepted(_, let again) = try await store.judgeFactor(
                id: "tf_sample", matchedStep: 101, maxFailures: 3, now: T.t0)
        else {
            Issue.record("next step not accepted")
            return
        }
        #expect(!again)
        for _ in 0..<3 {
            _ = try await store.judgeFactor(id: "tf_sample", matchedStep: nil, maxFailures: 3, now: T.t0)
        }
        guard
            case .locked(let locked) = try await store.judgeFactor(
                id: "tf_sample", matchedStep: 102, maxFailures: 3, now: T.t0)
        else {
            Issue.record("not locked")
            return
        }
        #expect(locked.failures == 0, "a lock starts the count again")
        #expect(locked.locks == 1)
        #expect(locked.lockedUntil == T.t0.addingTimeInterval(900))
        #expect(locked.lastUsedStep == 101)
    }

    @Test(
        "a lock lifts after 15 minutes, the next one lasts 30, and a right code clears the back-off",
        arguments: StoreKind.allCases)
    func lockBackOff(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        try await store.insertFactor(Self.factor(status: .active))
        func judge(_ step: Int64?, at seconds: Double) async throws -> TOTPJudgement {
            try await store.judgeFactor(
                id: "tf_sample", matchedStep: step, maxFailures: 2, now: Self.at(seconds))
        }
        _ = try await judge(nil, at: 0)
        guard case .incorrect(let first) = try await judge(nil, at: 1) else {
            Issue.record("the second wrong code did not count")
            return
        }
        #expect(first.lockedUntil == Self.at(901))
        guard case .locked = try await judge(200, at: 900) else {
            Issue.record("not locked before the lock lifts")
            return
        }
        _ = try await judge(nil, at: 901)
        guard case .incorrect(let second) = try await judge(nil, at: 902) else {
            Issue.record("after the lock lifted, a wrong code did not count")
            return
        }
        #expect(second.locks == 2)
        #expect(second.lockedUntil == Self.at(902 + 1800), "the second lock lasts twice as long")
        guard case .locked = try await judge(200, at: 902 + 1799) else {
            Issue.record("the second lock lifted early")
            return
        }
        guard case .accepted(let right, _) = try await judge(200, at: 902 + 1800) else {
            Issue.record("a right code after the lock was not accepted")
            return
        }
        #expect(right.locks == 0)
        #expect(right.lockedUntil == nil)
        #expect(right.failures == 0)
    }

    @Test(
        "a locked factor opens with a recovery code; a used code replayed counts nothing; an unconfirmed one takes none",
        arguments: StoreKind.allCases)
    func recoveryWhileLocked(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        try await store.insertFactor(Self.factor(status: .active))
        for second in 0..<2 {
            _ = try await store.judgeFactor(
                id: "tf_sample", matchedStep: nil, maxFailures: 2, now: Self.at(Double(second)))
        }
        let locked = try #require(try await store.factor(id: "tf_sample"))
        #expect(locked.isLocked(at: Self.at(10)))
        // Wrong recovery codes while it is locked count nothing: they cannot lengthen the lock.
        for guess in 0..<5 {
            let wrong = Array(repeating: UInt8(200 + guess), count: 32)
            guard
                case .lockedUnknown(let unchanged) = try await store.recoverFactor(
                    id: "tf_sample", hash: wrong, maxFailures: 2, now: Self.at(5))
            else {
                Issue.record("a wrong recovery code on a locked factor was not told apart")
                return
            }
            #expect(unchanged.locks == locked.locks)
            #expect(unchanged.lockedUntil == locked.lockedUntil)
            #expect(unchanged.failures == locked.failures)
        }
        let first = Array(repeating: UInt8(1), count: 32)
        guard
            case .used(let opened) = try await store.recoverFactor(
                id: "tf_sample", hash: first, maxFailures: 2, now: Self.at(10))
        else {
            Issue.record("a recovery code did not open the locked factor")
            return
        }
        #expect(opened.lockedUntil == nil)
        #expect(opened.locks == 0)
        #expect(opened.usedRecoveryHashes == [first])
        guard
            case .alreadyUsed(let replayed) = try await store.recoverFactor(
                id: "tf_sample", hash: first, maxFailures: 2, now: Self.at(11))
        else {
            Issue.record("a replayed recovery code was not told apart")
            return
        }
        #expect(replayed.failures == 0, "a replay is not a guess")
        let fresh = (0..<10).map { Array(repeating: UInt8(100 + $0), count: 32) }
        let replaced = try await store.replaceRecoveryCodes(id: "tf_sample", hashes: fresh)
        #expect(replaced?.usedRecoveryHashes == [])
        try await store.insertFactor(Self.factor("tf_unconfirmed"))
        guard
            case .notActive(let waiting) = try await store.recoverFactor(
                id: "tf_unconfirmed", hash: Array(repeating: UInt8(1), count: 32), maxFailures: 2,
                now: Self.at(0))
        else {
            Issue.record("an unconfirmed factor took a recovery code")
            return
        }
        #expect(waiting.recoveryHashes.count == 3)
        #expect(waiting.failures == 0)
    }

    @Test("a recovery code works once; an unknown one counts a failure", arguments: StoreKind.allCases)
    func recovery(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        try await store.insertFactor(Self.factor(status: .active))
        let second = Array(repeating: UInt8(2), count: 32)
        guard
            case .unknown(let missed) = try await store.recoverFactor(
                id: "tf_sample", hash: Array(repeating: 9, count: 32), maxFailures: 5, now: T.t0)
        else {
            Issue.record("not unknown")
            return
        }
        #expect(missed.failures == 1)
        guard
            case .used(let used) = try await store.recoverFactor(
                id: "tf_sample", hash: second, maxFailures: 5, now: T.t0)
        else {
            Issue.record("not used")
            return
        }
        #expect(used.recoveryHashes == [Array(repeating: 1, count: 32), Array(repeating: 3, count: 32)])
        #expect(used.failures == 0)
        guard
            case .alreadyUsed = try await store.recoverFactor(
                id: "tf_sample", hash: second, maxFailures: 5, now: T.t0)
        else {
            Issue.record("a code worked twice")
            return
        }
        let fresh = (0..<10).map { Array(repeating: UInt8(100 + $0), count: 32) }
        #expect(try await store.replaceRecoveryCodes(id: "tf_sample", hashes: fresh)?.recoveryHashes == fresh)
        #expect(try await store.factor(id: "tf_sample")?.recoveryHashes == fresh)
        #expect(try await store.deleteFactor(id: "tf_sample"))
        #expect(try await store.factor(id: "tf_sample") == nil)
    }

    @Test(
        "fifty judges of one step at once on separate connections: exactly one is accepted",
        arguments: StoreKind.allCases)
    func replayRace(kind: StoreKind) async throws {
        let stores = try await kind.makeStores(count: 4).map { try #require($0 as? any TOTPFactorStore) }
        try await stores[0].insertFactor(Self.factor())
        let accepted = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<50 {
                let store = stores[index % stores.count]
                group.addTask {
                    if case .accepted = try? await store.judgeFactor(
                        id: "tf_sample", matchedStep: 500, maxFailures: 100, now: T.t0)
                    {
                        return true
                    }
                    return false
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(accepted == 1)
    }
}
