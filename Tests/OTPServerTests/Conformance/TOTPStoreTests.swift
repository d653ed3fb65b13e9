import Foundation
import OTPCore
import OTPServer
import Testing

/// The authenticator-factor rules every store keeps, atomically.
@Suite struct TOTPStoreTests {
    typealias T = StoreConformanceTests

    static func factor(_ id: String = "tf_sample", recovery: Int = 3) -> TOTPFactor {
        TOTPFactor(
            id: id, account: "alice@example.org", issuer: "Example", sealedSecret: Array(0..<44),
            recoveryHashes: (0..<recovery).map { Array(repeating: UInt8($0 + 1), count: 32) }, createdAt: T.t0
        )
    }

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
        #expect(try await store.judgeFactor(id: "tf_none", matchedStep: 1, maxFailures: 5) == .notFound)
        #expect(try await store.recoverFactor(id: "tf_none", hash: [], maxFailures: 5) == .notFound)
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
                id: "tf_sample", matchedStep: nil, maxFailures: 3)
        else {
            Issue.record("not incorrect")
            return
        }
        #expect(wrong.failures == 1)
        guard
            case .accepted(let first, let confirmed) = try await store.judgeFactor(
                id: "tf_sample", matchedStep: 100, maxFailures: 3)
        else {
            Issue.record("not accepted")
            return
        }
        #expect(confirmed)
        #expect(first.status == .active)
        #expect(first.failures == 0)
        #expect(first.lastUsedStep == 100)
        #expect(
            try await store.judgeFactor(id: "tf_sample", matchedStep: 100, maxFailures: 3)
                == .alreadyUsed(first))
        #expect(
            try await store.judgeFactor(id: "tf_sample", matchedStep: 99, maxFailures: 3)
                == .alreadyUsed(first))
        guard
            case .accepted(_, let again) = try await store.judgeFactor(
                id: "tf_sample", matchedStep: 101, maxFailures: 3)
        else {
            Issue.record("next step not accepted")
            return
        }
        #expect(!again)
        for _ in 0..<3 { _ = try await store.judgeFactor(id: "tf_sample", matchedStep: nil, maxFailures: 3) }
        guard
            case .locked(let locked) = try await store.judgeFactor(
                id: "tf_sample", matchedStep: 102, maxFailures: 3)
        else {
            Issue.record("not locked")
            return
        }
        #expect(locked.failures == 3)
        #expect(locked.lastUsedStep == 101)
    }

    @Test("a recovery code works once; an unknown one counts a failure", arguments: StoreKind.allCases)
    func recovery(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        try await store.insertFactor(Self.factor())
        let second = Array(repeating: UInt8(2), count: 32)
        guard
            case .unknown(let missed) = try await store.recoverFactor(
                id: "tf_sample", hash: Array(repeating: 9, count: 32), maxFailures: 5)
        else {
            Issue.record("not unknown")
            return
        }
        #expect(missed.failures == 1)
        guard
            case .used(let used) = try await store.recoverFactor(
                id: "tf_sample", hash: second, maxFailures: 5)
        else {
            Issue.record("not used")
            return
        }
        #expect(used.recoveryHashes == [Array(repeating: 1, count: 32), Array(repeating: 3, count: 32)])
        #expect(used.failures == 0)
        guard case .unknown = try await store.recoverFactor(id: "tf_sample", hash: second, maxFailures: 5)
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
                        id: "tf_sample", matchedStep: 500, maxFailures: 100)
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
