import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Defects the reliability tests (scripts/reliability/) found, each held down by a focused test.
@Suite struct ReliabilityRegressionTests {
    /// Found by scripts/reliability/hostile.py: about a thousand idle connections from one client
    /// filled every connection slot, so every other client waited for the connection timeout.
    @Test("1,200 idle connections do not keep another client waiting")
    func idleConnectionFlood() async throws {
        try await Harness.with(connectionTimeout: .seconds(10)) { harness in
            let idle = IdleConnections()
            defer { idle.closeAll() }
            for _ in 0..<1_200 {
                idle.add(try RawHTTP.connect(port: harness.port))
            }
            try await Task.sleep(for: .milliseconds(300))
            let clock = ContinuousClock()
            let began = clock.now
            let response = try await RawHTTP.request(port: harness.port, method: "GET", path: "/healthz")
            let waited = clock.now - began
            #expect(response.status == 200)
            #expect(waited < .seconds(2), "a request waited \(waited) behind idle connections")
        }
    }
}

/// Sockets a test opened and closes at its end.
private final class IdleConnections: @unchecked Sendable {
    private var sockets: [Int32] = []

    func add(_ socket: Int32) { sockets.append(socket) }

    func closeAll() {
        for socket in sockets { close(socket) }
        sockets = []
    }
}
