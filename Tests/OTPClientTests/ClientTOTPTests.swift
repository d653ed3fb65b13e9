import Foundation
import OTPCore
import OTPEngine
import Testing

@testable import OTPClient

/// The client's authenticator-factor calls against a live server.
@Suite struct ClientTOTPTests {
    @Test("enrol, confirm with recovery codes, a replay's error code, recover, replace, delete")
    func lifecycle() async throws {
        let server = try await LiveServer.start()
        let client = server.client
        let enrolled = try await client.enrollTOTP(account: "alice@example.org", issuer: "Example")
        #expect(enrolled.status == "unconfirmed")
        let uri = try #require(enrolled.otpauthUri)
        #expect(enrolled.qrSvg?.hasPrefix("<svg") == true)
        let secretText = try #require(
            URLComponents(string: uri)?.queryItems?.first { $0.name == "secret" }?.value)
        let totp = TOTP(secret: try #require(Base32.decode(secretText)))
        let code = try #require(totp.code(at: server.clock.now))

        let confirmed = try await client.checkTOTP(id: enrolled.id, code: code)
        #expect(confirmed.status == "active")
        let codes = try #require(confirmed.recoveryCodes)
        try #require(codes.count == 10)
        await #expect {
            try await client.checkTOTP(id: enrolled.id, code: code)
        } throws: { error in
            (error as? ClientError)?.code == "code_already_used"
        }
        #expect(try await client.recoverTOTP(id: enrolled.id, code: codes[0]).recoveryCodesLeft == 9)
        let replaced = try await client.replaceTOTPRecoveryCodes(id: enrolled.id)
        #expect(replaced.recoveryCodes?.count == 10)
        try await client.deleteTOTP(id: enrolled.id)
        await #expect {
            try await client.checkTOTP(id: enrolled.id, code: code)
        } throws: { error in
            (error as? ClientError)?.code == "not_found"
        }
        await server.stop()
    }
}

/// The service behind the screen's authenticator mode.
@Suite struct AuthenticatorServiceTests {
    @Test("right is approved with the factor's id, a replay and a wrong code are the screen's failures")
    func check() async throws {
        let server = try await LiveServer.start()
        let enrolled = try await server.client.enrollTOTP(account: "bob@example.org", issuer: "Example")
        let uri = try #require(enrolled.otpauthUri)
        let secretText = try #require(
            URLComponents(string: uri)?.queryItems?.first { $0.name == "secret" }?.value)
        let secret = try #require(Base32.decode(secretText))
        let code = try #require(TOTP(secret: secret).code(at: server.clock.now))
        let service = AuthenticatorService(client: server.client)
        let approved = try await service.check(id: enrolled.id, code: code)
        #expect(approved.status == .approved)
        #expect(approved.id == enrolled.id)
        await #expect(throws: VerificationFailure.codeAlreadyUsed) {
            try await service.check(id: enrolled.id, code: code)
        }
        let wrong = code == "000000" ? "111111" : "000000"
        await #expect(throws: VerificationFailure.incorrectCode(attemptsLeft: 9)) {
            try await service.check(id: enrolled.id, code: wrong)
        }
        await #expect(throws: VerificationFailure.notFound) { try await service.resend(id: enrolled.id) }
        await #expect(throws: VerificationFailure.notFound) {
            try await service.start(to: "+12025550100", channel: nil)
        }
        await server.stop()
    }
}
