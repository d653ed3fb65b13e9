import Foundation
import OTPCore
import OTPEngine
import Testing

@Suite struct VerifierCheckTests {
    @Test("the right code approves, once")
    func approve() async throws {
        let h = Harness()
        let (v, code) = try await h.started()
        let approved = try await h.verifier.check(id: v.id, code: code, clientAddress: "192.0.2.1")
        #expect(approved.status == .approved)
        #expect(approved.resendAvailableAt == nil)
        let again = await verifierError { () async throws(VerifierError) in
            try await h.verifier.check(id: v.id, code: code, clientAddress: "192.0.2.1")
        }
        #expect(again == VerifierError.notPending(attemptsLeft: approved.attemptsLeft))
        #expect(again?.attemptsLeft == v.attemptsLeft - 1)
    }

    @Test(
        "codes are normalised as the screen does before they are judged",
        arguments: [
            { (code: String) in code.prefix(3) + " " + code.dropFirst(3) },
            { (code: String) in code.prefix(3) + "-" + code.dropFirst(3) },
            { (code: String) in "G-" + code },
            { (code: String) in code + code },
            { (code: String) in
                String(code.unicodeScalars.map { Character(Unicode.Scalar($0.value - 0x30 + 0x0660)!) })
            },
            { (code: String) in
                String(code.unicodeScalars.map { Character(Unicode.Scalar($0.value - 0x30 + 0xFF10)!) })
            },
        ] as [@Sendable (String) -> String])
    func normalised(variant: @Sendable (String) -> String) async throws {
        let h = Harness()
        let (v, code) = try await h.started()
        #expect(
            try await h.verifier.check(id: v.id, code: variant(code), clientAddress: "192.0.2.1").status
                == .approved)
    }

    @Test("a code of the wrong length after normalisation is invalid_code_format and costs no attempt")
    func invalidFormat() async throws {
        let h = Harness()
        let (v, code) = try await h.started()
        for text in [String(code.prefix(5)), code + "1", "", "abcdef", code + Harness.wrong(code)] {
            let error = await verifierError { () async throws(VerifierError) in
                try await h.verifier.check(id: v.id, code: text, clientAddress: "192.0.2.1")
            }
            #expect(error?.kind == .invalidCodeFormat, "\(text)")
            #expect(error?.attemptsLeft == 3)
        }
        #expect(try await h.verifier.status(id: v.id).attemptsLeft == 3)
        #expect(
            try await h.verifier.check(id: v.id, code: code, clientAddress: "192.0.2.1").status == .approved)
    }

    @Test("wrong codes count down, the last one locks in the same answer, and a locked code is not judged")
    func countdownAndLock() async throws {
        let h = Harness()
        let (v, code) = try await h.started()
        let wrong = Harness.wrong(code)
        var answers: [VerifierError?] = []
        for _ in 0..<3 {
            answers.append(
                await verifierError { () async throws(VerifierError) in
                    try await h.verifier.check(id: v.id, code: wrong, clientAddress: "192.0.2.1")
                })
        }
        #expect(answers.map { $0?.kind } == [.incorrectCode, .incorrectCode, .incorrectCode])
        #expect(answers.map { $0?.attemptsLeft } == [2, 1, 0])
        let status = try await h.verifier.status(id: v.id)
        #expect(status.status == .locked)
        #expect(status.attemptsLeft == 0)

        let locked = await verifierError { () async throws(VerifierError) in
            try await h.verifier.check(id: v.id, code: code, clientAddress: "192.0.2.1")
        }
        #expect(locked == VerifierError.locked)
    }

    @Test(
        "a code whose lifetime has passed is expired, at the exact millisecond, and expiry wins over locked")
    func expiry() async throws {
        let h = Harness()
        let (v, code) = try await h.started()
        h.clock.advance(by: .milliseconds(299_999))
        #expect(try await h.verifier.status(id: v.id).status == .pending)
        h.clock.advance(by: .milliseconds(1))
        #expect(try await h.verifier.status(id: v.id).status == .expired)
        let error = await verifierError { () async throws(VerifierError) in
            try await h.verifier.check(id: v.id, code: code, clientAddress: "192.0.2.1")
        }
        #expect(error?.kind == .expired)

        let (other, otherCode) = try await h.started(to: "+15555550101")
        for _ in 0..<3 {
            _ = await verifierError { () async throws(VerifierError) in
                try await h.verifier.check(
                    id: other.id, code: Harness.wrong(otherCode), clientAddress: "192.0.2.1")
            }
        }
        #expect(try await h.verifier.status(id: other.id).status == .locked)
        h.clock.advance(by: .seconds(300))
        #expect(try await h.verifier.status(id: other.id).status == .expired)
        let lockedThenExpired = await verifierError { () async throws(VerifierError) in
            try await h.verifier.check(id: other.id, code: otherCode, clientAddress: "192.0.2.1")
        }
        #expect(lockedThenExpired?.kind == .expired)
    }

    @Test("unknown and malformed identifiers are not_found")
    func notFound() async throws {
        let h = Harness()
        for id in ["vf_AAAAAAAAAAAAAAAAAAAAAA", "", "vf_with space", String(repeating: "x", count: 300)] {
            let error = await verifierError { () async throws(VerifierError) in
                try await h.verifier.check(id: id, code: "123456", clientAddress: "192.0.2.1")
            }
            #expect(error == VerifierError.notFound)
            #expect(
                await verifierError { () async throws(VerifierError) in try await h.verifier.status(id: id) }?
                    .kind
                    == .notFound)
            #expect(
                await verifierError { () async throws(VerifierError) in try await h.verifier.cancel(id: id) }?
                    .kind
                    == .notFound)
            #expect(
                await verifierError { () async throws(VerifierError) in
                    try await h.verifier.resend(id: id, clientAddress: "192.0.2.1")
                }?.kind == .notFound)
        }
    }

    @Test("the code of another verification does not match")
    func otherVerificationsCode() async throws {
        let h = Harness()
        let (first, _) = try await h.started(to: "+15555550100")
        var (second, secondCode) = try await h.started(to: "+15555550101")
        // Make sure the codes differ, so the test shows a cross-verification miss.
        while secondCode == (await h.sender.lastCode(for: first.id)) {
            (second, secondCode) = try await h.started(to: "+15555550101")
        }
        let error = await verifierError { () async throws(VerifierError) in
            try await h.verifier.check(id: first.id, code: secondCode, clientAddress: "192.0.2.1")
        }
        #expect(error?.kind == .incorrectCode)
        #expect(try await h.verifier.status(id: second.id).status == .pending)
    }

    @Test("a verifier with another key rejects the right code")
    func wrongKey() async throws {
        let store = MemoryStore()
        let h = Harness(store: store)
        let (v, code) = try await h.started()
        var otherSecret = testSecret
        otherSecret[0] ^= 0xFF
        let impostor = Verifier(
            store: store, sender: h.sender, policy: relaxedPolicy(), secret: otherSecret,
            now: { h.clock.date })
        let error = await verifierError { () async throws(VerifierError) in
            try await impostor.check(id: v.id, code: code, clientAddress: "192.0.2.1")
        }
        #expect(error?.kind == .incorrectCode)
        #expect(
            try await h.verifier.check(id: v.id, code: code, clientAddress: "192.0.2.1").status == .approved)
    }

    @Test("approved and canceled verifications answer not_pending, which wins over expired")
    func notPendingWinsOverExpired() async throws {
        let h = Harness()
        let (approved, code) = try await h.started(to: "+15555550100")
        _ = try await h.verifier.check(id: approved.id, code: code, clientAddress: "192.0.2.1")
        let (canceled, canceledCode) = try await h.started(to: "+15555550101")
        _ = try await h.verifier.cancel(id: canceled.id)
        h.clock.advance(by: .seconds(600))
        for (id, code) in [(approved.id, code), (canceled.id, canceledCode)] {
            let error = await verifierError { () async throws(VerifierError) in
                try await h.verifier.check(id: id, code: code, clientAddress: "192.0.2.1")
            }
            #expect(error?.kind == .notPending)
        }
    }

    @Test("parallel right codes approve exactly once")
    func goodOnceInParallel() async throws {
        let h = Harness()
        let (v, code) = try await h.started()
        let outcomes = await withTaskGroup(of: VerifierError.Kind?.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    await verifierError { () async throws(VerifierError) in
                        try await h.verifier.check(id: v.id, code: code, clientAddress: "192.0.2.1")
                    }?.kind
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == 1)
        #expect(outcomes.allSatisfy { $0 == nil || $0 == .notPending || $0 == .locked })
    }
}

/// Checks of a verification seen before go straight to the store's one step; the answers and their
/// order must stay those of a first check.
@Suite struct KnownVerificationCheckTests {
    static func kind(_ body: () async throws(VerifierError) -> Verification) async -> VerifierError.Kind? {
        do throws(VerifierError) {
            _ = try await body()
            return nil
        } catch {
            return error.kind
        }
    }

    @Test(
        "after a first check: canceled wins over a malformed code, a purged one is not found, expiry wins over lock"
    )
    func orderAfterFirstCheck() async throws {
        let h = Harness(policy: relaxedPolicy { $0.retention = .zero })
        let (canceled, code) = try await h.started(to: "+15555550101")
        let wrong = Harness.wrong(code)
        #expect(
            await Self.kind { () async throws(VerifierError) in
                try await h.verifier.check(id: canceled.id, code: wrong, clientAddress: "192.0.2.1")
            } == .incorrectCode)
        _ = try await h.verifier.cancel(id: canceled.id)
        #expect(
            await Self.kind { () async throws(VerifierError) in
                try await h.verifier.check(id: canceled.id, code: "12", clientAddress: "192.0.2.1")
            } == .notPending)
        #expect(
            await Self.kind { () async throws(VerifierError) in
                try await h.verifier.check(id: canceled.id, code: code, clientAddress: "192.0.2.1")
            } == .notPending)

        let (expiring, expiringCode) = try await h.started(to: "+15555550102")
        for _ in 0..<3 {
            _ = await Self.kind { () async throws(VerifierError) in
                try await h.verifier.check(
                    id: expiring.id, code: Harness.wrong(expiringCode), clientAddress: "192.0.2.1")
            }
        }
        #expect(
            await Self.kind { () async throws(VerifierError) in
                try await h.verifier.check(id: expiring.id, code: expiringCode, clientAddress: "192.0.2.1")
            } == .locked)
        h.clock.advance(by: .seconds(301))
        #expect(
            await Self.kind { () async throws(VerifierError) in
                try await h.verifier.check(id: expiring.id, code: expiringCode, clientAddress: "192.0.2.1")
            } == .expired)
        _ = try await h.verifier.purgeExpired()
        #expect(
            await Self.kind { () async throws(VerifierError) in
                try await h.verifier.check(id: expiring.id, code: expiringCode, clientAddress: "192.0.2.1")
            } == .notFound)
    }
}
