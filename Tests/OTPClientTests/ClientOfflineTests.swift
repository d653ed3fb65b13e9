import Foundation
import OTPCore
import Testing

@testable import OTPClient

@Suite struct ClientOfflineTests {
    /// A loopback port nothing listens on: bound, then closed.
    static func closedPort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("a server that is not there is a network failure, never an attempt")
    func unreachable() async throws {
        let port = try Self.closedPort()
        let client = VerificationClient(
            baseURL: URL(string: "http://127.0.0.1:\(port)")!, apiKey: "k", timeout: .seconds(2))
        await #expect(throws: VerificationFailure.networkFailure) {
            try await client.check(id: "vf_x", code: "482019")
        }
        do {
            _ = try await client.startVerification(to: "+15550100")
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
