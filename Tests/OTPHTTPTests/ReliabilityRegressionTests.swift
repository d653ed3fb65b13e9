import Foundation
import OTPTestSupport
import Testing

/// Defects the reliability tests (scripts/reliability/) found, each held down by a focused test.
///
/// The servers and the floods run in child processes: a test process holding thousands of sockets
/// would disturb the other tests running beside it.
@Suite struct ReliabilityRegressionTests {
    /// Found by scripts/reliability/hostile.py: about a thousand idle connections from one client
    /// filled every connection slot, so every other client waited for the connection timeout.
    @Test("1,200 idle connections do not keep another client waiting")
    func idleConnectionFlood() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let serve = try ServeProcess([
            "serve", "--port", "0", "--api-key", "flood-\(UUID().uuidString)", "--store", "memory",
            "--sender", "outbox:\(directory.appendingPathComponent("outbox.jsonl").path)",
            // The flood and the other client share 127.0.0.1: this is about the cap of all connections.
            "--max-connections-per-address", "0",
        ])
        _ = await serve.waitForFirstLine()
        let port = try #require(serve.port)
        let flood = try IdleConnections(port: port, count: 1_200)
        let opened = await flood.ready()
        #expect(opened == 1_200)
        let clock = ContinuousClock()
        let began = clock.now
        let response = try await RawHTTP.request(port: port, method: "GET", path: "/healthz")
        let waited = clock.now - began
        flood.stop()
        let (status, _, _) = await serve.stop()
        #expect(response.status == 200)
        #expect(waited < .seconds(2), "a request waited \(waited) behind idle connections")
        #expect(status == 0)
    }
}

/// A python3 child that opens connections to a port, says nothing on them, and closes them when told.
private final class IdleConnections: @unchecked Sendable {
    private let process = ChildProcess()
    private let input = Pipe()
    private let output = Pipe()

    init(port: Int, count: Int) throws {
        let script = """
            import socket, sys
            held = []
            for _ in range(\(count)):
                try:
                    held.append(socket.create_connection(("127.0.0.1", \(port)), timeout=5))
                except OSError:
                    break
            print(len(held), flush=True)
            sys.stdin.read()
            """
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        process.standardInput = .pipe(input)
        process.standardOutput = .pipe(output)
        process.standardError = .null
        try process.run()
    }

    /// Waits until the connections are open; returns how many opened.
    func ready() async -> Int {
        let handle = output.fileHandleForReading
        return await withCheckedContinuation { continuation in
            Thread {
                var data = Data()
                while !data.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    data += chunk
                }
                let text = String(decoding: data, as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines)
                continuation.resume(returning: Int(text) ?? 0)
            }.start()
        }
    }

    /// Closes every connection and waits for the child to exit.
    func stop() {
        try? input.fileHandleForWriting.close()
        awaitExit(process)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            awaitExit(process)
        }
    }
}
