import Foundation
import OTPCore
import OTPEngine
import Testing

@Suite struct VerifierCancelStatusTests {
    @Test("cancel works from pending, locked and expired, and only once")
    func cancel() async throws {
        let h = Harness()
        let (pending, _) = try await h.started(to: "+15555550100")
        let (locked, lockedCode) = try await h.started(to: "+15555550101")
        for _ in 0..<3 {
            _ = await verifierError { () async throws(VerifierError) in
                try await h.verifier.check(
                    id: locked.id, code: Harness.wrong(lockedCode), clientAddress: "192.0.2.1")
            }
        }
        #expect(try await h.verifier.cancel(id: pending.id).status == .canceled)
        #expect(try await h.verifier.cancel(id: locked.id).status == .canceled)
        let (expiring, _) = try await h.started(to: "+15555550102")
        h.clock.advance(by: .seconds(301))
        let canceled = try await h.verifier.cancel(id: expiring.id)
        #expect(canceled.status == .canceled)
        #expect(canceled.resendAvailableAt == nil)
        #expect(try await h.verifier.status(id: expiring.id).status == .canceled)
        let again = await verifierError { () async throws(VerifierError) in
            try await h.verifier.cancel(id: pending.id)
        }
        #expect(again == VerifierError.notPending)
    }

    @Test("an approved verification cannot be canceled")
    func cancelApproved() async throws {
        let h = Harness()
        let (v, code) = try await h.started()
        _ = try await h.verifier.check(id: v.id, code: code, clientAddress: "192.0.2.1")
        #expect(
            await verifierError { () async throws(VerifierError) in try await h.verifier.cancel(id: v.id) }?
                .kind
                == .notPending)
        #expect(try await h.verifier.status(id: v.id).status == .approved)
    }

    @Test("status reads expired once the lifetime passes, with no check in between")
    func statusExpires() async throws {
        let h = Harness()
        let (v, _) = try await h.started()
        #expect(try await h.verifier.status(id: v.id).status == .pending)
        h.clock.advance(by: .seconds(300))
        let read = try await h.verifier.status(id: v.id)
        #expect(read.status == .expired)
        #expect(read.resendAvailableAt == v.resendAvailableAt)
    }

    @Test("a healthy store makes a healthy verifier")
    func health() async {
        #expect(await Harness().verifier.isHealthy())
        #expect(await !Harness(store: FaultyStore(failing: [.ping])).verifier.isHealthy())
    }

    @Test("records are purged after their retention, and read as not_found then")
    func purge() async throws {
        let store = MemoryStore()
        let h = Harness(store: store, policy: relaxedPolicy { $0.retention = .seconds(3600) })
        let (v, _) = try await h.started()
        h.clock.advance(by: .seconds(300 + 3599))
        #expect(try await h.verifier.purgeExpired() == 0)
        h.clock.advance(by: .seconds(1))
        #expect(try await h.verifier.purgeExpired() == 1)
        #expect(
            await verifierError { () async throws(VerifierError) in try await h.verifier.status(id: v.id) }?
                .kind
                == .notFound)
    }
}

@Suite struct PurgeScheduleTests {
    @Test("the purge timer purges once per interval on its clock, and stops when its task is cancelled")
    func purgeTimer() async throws {
        let store = MemoryStore()
        let h = Harness(store: store, policy: relaxedPolicy { $0.retention = .zero })
        _ = try await h.started()
        let timer = ManualClock()
        let verifier = h.verifier
        let task = Task { await verifier.purgeExpired(every: .seconds(60), clock: timer) }
        h.clock.advance(by: .seconds(301))
        while timer.sleeperCount == 0 { await Task.yield() }
        #expect(store.count == 1)
        timer.advance(by: .seconds(59))
        #expect(store.count == 1)
        timer.advance(by: .seconds(1))
        while store.count == 1 { await Task.yield() }
        #expect(store.count == 0)
        task.cancel()
        await task.value
    }
}

@Suite struct StoreFailureTests {
    static let unavailable = VerifierError.Kind.storeUnavailable

    @Test(
        "a store failure on any step of start is store_unavailable, screened or not",
        arguments: [
            (FaultyStore.Operation.start, false), (.idempotencyEntry, true), (.acquire, true), (.start, true),
        ])
    func start(failing: FaultyStore.Operation, screened: Bool) async {
        let store = FaultyStore(failing: [failing])
        let h = Harness(store: store)
        let screen: StartScreen? = screened ? { @Sendable _ in .allow } : nil
        let error = await verifierError { () async throws(VerifierError) in
            try await h.verifier.start(
                StartRequest(to: "+15555550100", clientAddress: "192.0.2.1", idempotencyKey: "k"),
                screen: screen)
        }
        #expect(error?.kind == Self.unavailable)
        #expect(await h.sender.messages.isEmpty)
    }

    @Test(
        "a store failure on any step of check is store_unavailable",
        arguments: [
            FaultyStore.Operation.record, .check,
        ])
    func check(failing: FaultyStore.Operation) async throws {
        let store = FaultyStore()
        let h = Harness(store: store)
        let (v, code) = try await h.started()
        store.fail([failing])
        let error = await verifierError { () async throws(VerifierError) in
            try await h.verifier.check(id: v.id, code: code, clientAddress: "192.0.2.1")
        }
        #expect(error?.kind == Self.unavailable)
    }

    @Test(
        "a store failure on any step of resend is store_unavailable",
        arguments: [
            FaultyStore.Operation.record, .acquire, .beginResend, .finishResend,
        ])
    func resend(failing: FaultyStore.Operation) async throws {
        let store = FaultyStore()
        let h = Harness(store: store, policy: relaxedPolicy { $0.globalSendsPerHour = 100 })
        let (v, _) = try await h.started()
        h.clock.advance(by: .seconds(30))
        store.fail([failing])
        let error = await verifierError { () async throws(VerifierError) in
            try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
        }
        #expect(error?.kind == Self.unavailable)
    }

    @Test("a store failure on status, cancel or purge is store_unavailable")
    func others() async throws {
        let store = FaultyStore()
        let h = Harness(store: store)
        let (v, _) = try await h.started()
        store.fail([.record, .cancel, .purge])
        #expect(
            await verifierError { () async throws(VerifierError) in try await h.verifier.status(id: v.id) }?
                .kind
                == Self.unavailable)
        #expect(
            await verifierError { () async throws(VerifierError) in try await h.verifier.cancel(id: v.id) }?
                .kind
                == Self.unavailable)
        #expect(
            await verifierError { () async throws(VerifierError) in try await h.verifier.purgeExpired() }?
                .kind
                == Self.unavailable)
    }

    @Test("failures while cleaning up after a failed delivery still answer delivery_failed")
    func cleanupFailures() async throws {
        let store = FaultyStore()
        let h = Harness(store: store, policy: relaxedPolicy { $0.globalSendsPerHour = 100 })
        let (v, _) = try await h.started()
        h.clock.advance(by: .seconds(30))
        await h.sender.setFailing(true)
        store.fail([.abandonResend, .release, .cancel, .releaseIdempotencyKey])
        let resend = await verifierError { () async throws(VerifierError) in
            try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
        }
        #expect(resend?.kind == .deliveryFailed)
        let start = await verifierError { () async throws(VerifierError) in
            try await h.verifier.start(
                StartRequest(to: "+15555550101", clientAddress: "192.0.2.1", idempotencyKey: "k"))
        }
        #expect(start?.kind == .deliveryFailed)
    }
}
