import Foundation
import OTPCore
import OTPTestSupport
import Testing

@testable import OTPClient

@Suite struct ClientOfflineTests {
    @Test("a server that is not there is a network failure, never an attempt")
    func unreachable() async throws {
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let port = closed.port
        let client = VerificationClient(
            baseURL: URL(string: "http://127.0.0.1:\(port)")!, apiKey: "k", timeout: .seconds(2))
        await #expect(throws: VerificationFailure.networkFailure) {
            try await client.check(id: "vf_x", code: "482019")
        }
        do {
            _ = try await client.startVerification(to: "+12015550100")
            Issue.record("start succeeded without a server")
        } catch {
            #expect(error.code == "network_failure")
        }
    }

    @Test("client errors carry the wire code and map to the screen's failures")
    func errorMapping() {
        let api = ClientError.api(APIError(code: .incorrectCode, message: "m", attemptsLeft: 1))
        #expect(api.code == "incorrect_code")
        #expect(api.failure == .incorrectCode(attemptsLeft: 1))
        #expect(ClientError.network("x").failure == .networkFailure)
        // A refused destination says so on the screen, not "couldn't send the code".
        let refusals: [(APIError, VerificationFailure)] = [
            (
                APIError(code: .destinationNotAllowed, message: "m", reason: "number_type"),
                .destinationRefused
            ),
            (APIError(code: .channelNotSupported, message: "m"), .destinationRefused),
            (
                APIError(code: .destinationBlocked, message: "m", retryAfter: 300, reason: "pumping"),
                .destinationBlocked(retryAfter: 300)
            ),
            (APIError(code: .startRefused, message: "m"), .startRefused),
        ]
        for (error, failure) in refusals { #expect(ClientError.api(error).failure == failure) }
        #expect(ClientError.invalidResponse("x").failure == .networkFailure)
        #expect(ClientError.invalidResponse("x").code == "invalid_response")
    }

    @Test("an empty id is refused before any request")
    func emptyID() async {
        let client = VerificationClient(baseURL: URL(string: "http://127.0.0.1:9")!, apiKey: "k")
        do {
            _ = try await client.status(id: "")
            Issue.record("an empty id was sent")
        } catch {
            #expect(error.code == "not_found")
        }
    }
}
