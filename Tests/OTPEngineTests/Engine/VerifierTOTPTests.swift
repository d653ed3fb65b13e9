import Foundation
import OTPCore
import OTPEngine
import Testing

/// Authenticator factors through the engine, on a manual clock.
@Suite struct VerifierTOTPTests {
    /// The secret in an otpauth URI.
    static func secret(of uri: String) throws -> [UInt8] {
        let query = try #require(URLComponents(string: uri)?.queryItems)
        let text = try #require(query.first { $0.name == "secret" }?.value)
        return try #require(Base32.decode(text))
    }

    static func enrolled(
        _ harness: Harness = Harness()
    ) async throws -> (Harness, TOTPEnrollment, TOTP) {
        let enrollment = try await harness.verifier.enrollTOTP(
            account: "alice@example.org", issuer: "Example")
        return (harness, enrollment, TOTP(secret: try secret(of: enrollment.otpauthURI)))
    }

    static func check(
        _ harness: Harness, _ id: String, _ code: String
    ) async -> Result<(factor: TOTPFactorView, recoveryCodes: [String]?), VerifierError> {
        do throws(VerifierError) {
            return .success(
                try await harness.verifier.checkTOTP(id: id, code: code, clientAddress: "192.0.2.1"))
        } catch {
            return .failure(error)
        }
    }

    static func kind(
        _ result: Result<(factor: TOTPFactorView, recoveryCodes: [String]?), VerifierError>
    )
        -> VerifierError.Kind?
    {
        if case .failure(let error) = result { return error.kind }
        return nil
    }

    @Test(
        "enrolment gives an unconfirmed factor and an otpauth URI with RFC 6238 defaults and a 160-bit secret"
    )
    func enrol() async throws {
        let (_, enrollment, totp) = try await Self.enrolled()
        #expect(enrollment.factor.status == .unconfirmed)
        #expect(enrollment.factor.id.hasPrefix("tf_"))
        #expect(enrollment.factor.attemptsLeft == 10)
        #expect(enrollment.factor.recoveryCodesLeft == 0)
        #expect(totp.secret.count == 20)
        #expect(enrollment.otpauthURI.hasPrefix("otpauth://totp/Example:alice@example.org?secret="))
        #expect(enrollment.otpauthURI.contains("&issuer=Example&algorithm=SHA1&digits=6&period=30"))
    }

    @Test(
        "the secret is kept sealed: the store holds neither it nor its base32, and the box is bound to the id"
    )
    func sealedAtRest() async throws {
        let (harness, enrollment, totp) = try await Self.enrolled()
        let store = try #require(harness.store as? any TOTPFactorStore)
        let stored = try #require(try await store.factor(id: enrollment.factor.id))
        #expect(stored.sealedSecret.count == 12 + 20 + 16)
        let bytes = stored.sealedSecret
        #expect(!(0...(bytes.count - 20)).contains { Array(bytes[$0..<$0 + 20]) == totp.secret })
        let key = try #require(
            HMACSHA256.authenticationCode(key: testSecret, message: Array("otpkit totp secret box v1".utf8)))
        #expect(SecretBox.open(bytes, key: key, context: Array(enrollment.factor.id.utf8)) == totp.secret)
        #expect(SecretBox.open(bytes, key: key, context: Array("tf_another".utf8)) == nil)
    }

    @Test(
        "the first right code confirms and returns ten recovery codes once; the same code again is a replay")
    func confirm() async throws {
        let (harness, enrollment, totp) = try await Self.enrolled()
        let id = enrollment.factor.id
        let code = try #require(totp.code(at: harness.clock.date))
        let first = try await Self.check(harness, id, code).get()
        #expect(first.factor.status == .active)
        let codes = try #require(first.recoveryCodes)
        try #require(codes.count == 10)
        #expect(Set(codes).count == 10)
        #expect(codes.allSatisfy { $0.count == 11 && $0.dropFirst(5).first == "-" })
        #expect(first.factor.recoveryCodesLeft == 10)
        #expect(Self.kind(await Self.check(harness, id, code)) == .codeAlreadyUsed)
        harness.clock.advance(by: .seconds(30))
        let next = try #require(totp.code(at: harness.clock.date))
        let later = try await Self.check(harness, id, next).get()
        #expect(later.recoveryCodes == nil, "recovery codes come with the confirming check only")
    }

    @Test("a code of the step before or after is accepted; two steps away is wrong")
    func window() async throws {
        let (harness, enrollment, totp) = try await Self.enrolled()
        let id = enrollment.factor.id
        let now = harness.clock.date
        #expect(
            try await Self.check(harness, id, try #require(totp.code(at: now.addingTimeInterval(-30)))).get()
                .factor.status == .active)
        #expect(
            try await Self.check(harness, id, try #require(totp.code(at: now.addingTimeInterval(30)))).get()
                .factor.status == .active)
        let far = try #require(totp.code(at: now.addingTimeInterval(90)))
        #expect(
            Self.kind(await Self.check(harness, id, far)) == .incorrectCode
                || far == totp.code(at: now))
        // An older step than the last accepted one is a replay even inside the window.
        #expect(
            Self.kind(await Self.check(harness, id, try #require(totp.code(at: now)))) == .codeAlreadyUsed)
    }

    /// A code of the same length that differs from `code` in every digit.
    static func wrong(_ code: String) -> String {
        String(code.map { $0 == "9" ? "0" : Character(String(($0.wholeNumberValue ?? 0) + 1)) })
    }

    @Test("wrong codes count down and the tenth locks; a malformed code counts nothing")
    func lock() async throws {
        let (harness, enrollment, totp) = try await Self.enrolled()
        let id = enrollment.factor.id
        let right = try #require(totp.code(at: harness.clock.date))
        let wrong = Self.wrong(right)
        let malformed = await Self.check(harness, id, "12345")
        #expect(Self.kind(malformed) == .invalidCodeFormat)
        for left in stride(from: 9, through: 0, by: -1) {
            guard case .failure(let error) = await Self.check(harness, id, wrong) else {
                Issue.record("a wrong code was accepted")
                return
            }
            #expect(error.kind == .incorrectCode)
            #expect(error.attemptsLeft == left)
        }
        #expect(Self.kind(await Self.check(harness, id, right)) == .locked)
    }

    @Test("on a locked factor a wrong recovery code is locked and counts nothing; a right one opens it")
    func recoveryOnALockedFactor() async throws {
        let (harness, enrollment, totp) = try await Self.enrolled()
        let id = enrollment.factor.id
        let right = try #require(totp.code(at: harness.clock.date))
        let codes = try #require(try await Self.check(harness, id, right).get().recoveryCodes)
        harness.clock.advance(by: .seconds(30))
        let next = try #require(totp.code(at: harness.clock.date))
        let wrong = Self.wrong(next)
        for _ in 0..<10 { _ = await Self.check(harness, id, wrong) }
        let lockedUntil = try #require(try await harness.store.factor(id: id)?.lockedUntil)
        for _ in 0..<25 {
            await #expect(throws: VerifierError.locked) {
                try await harness.verifier.recoverTOTP(
                    id: id, code: "zzzzz-zzzzz", clientAddress: "192.0.2.1")
            }
        }
        let after = try #require(try await harness.store.factor(id: id))
        #expect(after.lockedUntil == lockedUntil, "wrong recovery codes did not lengthen the lock")
        #expect(after.locks == 1)
        let opened = try await harness.verifier.recoverTOTP(
            id: id, code: codes[0], clientAddress: "192.0.2.1")
        #expect(opened.status == .active)
        #expect(try await harness.store.factor(id: id)?.lockedUntil == nil)
    }

    @Test("each recovery code works once; new codes replace the old; a deleted factor is gone")
    func recovery() async throws {
        let (harness, enrollment, totp) = try await Self.enrolled()
        let id = enrollment.factor.id
        let code = try #require(totp.code(at: harness.clock.date))
        let codes = try #require(try await Self.check(harness, id, code).get().recoveryCodes)
        try #require(codes.count == 10)
        let used = try await harness.verifier.recoverTOTP(
            id: id, code: codes[3].uppercased(), clientAddress: "192.0.2.1")
        #expect(used.recoveryCodesLeft == 9)
        // A replay of a used code is told apart from a guess, and counts nothing.
        await #expect(throws: VerifierError.codeAlreadyUsed) {
            try await harness.verifier.recoverTOTP(id: id, code: codes[3], clientAddress: "192.0.2.1")
        }
        await #expect(throws: VerifierError.incorrectCode(attemptsLeft: 9)) {
            try await harness.verifier.recoverTOTP(id: id, code: "zzzzz-zzzzz", clientAddress: "192.0.2.1")
        }
        let (_, fresh) = try await harness.verifier.replaceTOTPRecoveryCodes(id: id)
        try #require(fresh.count == 10)
        #expect(Set(fresh).isDisjoint(with: codes))
        await #expect(throws: VerifierError.self) {
            try await harness.verifier.recoverTOTP(id: id, code: codes[0], clientAddress: "192.0.2.1")
        }
        #expect(
            try await harness.verifier.recoverTOTP(id: id, code: fresh[0], clientAddress: "192.0.2.1")
                .recoveryCodesLeft == 9)
        try await harness.verifier.deleteTOTP(id: id)
        await #expect(throws: VerifierError.notFound) { try await harness.verifier.deleteTOTP(id: id) }
        #expect(Self.kind(await Self.check(harness, id, "123456")) == .notFound)
        #expect(Self.kind(await Self.check(harness, "tf_bad id", "123456")) == .notFound)
    }

    @Test("account and issuer names: bounds, no control characters, no colon in the issuer")
    func names() {
        #expect(Verifier.factorNameProblem(account: "alice@example.org", issuer: "Example") == nil)
        #expect(Verifier.factorNameProblem(account: "", issuer: "Example") != nil)
        #expect(Verifier.factorNameProblem(account: String(repeating: "a", count: 257), issuer: "E") != nil)
        #expect(Verifier.factorNameProblem(account: "a\u{7}b", issuer: "E") != nil)
        #expect(Verifier.factorNameProblem(account: "a", issuer: "Ex:ample") != nil)
        #expect(Verifier.factorNameProblem(account: "a", issuer: "") != nil)
    }
}
