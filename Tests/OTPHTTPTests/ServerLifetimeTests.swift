import Foundation
import OTPHTTP
import Testing

/// A handler whose answers wait on a gate the test opens, and that says when a request arrived.
final class GatedHandler: HTTPHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var arrived = 0
    private var finished = 0
    private var open = false

    var arrivals: Int { lock.withLock { arrived } }
    var finishes: Int { lock.withLock { finished } }
    func release() { lock.withLock { open = true } }

    func handle(_ request: HTTPRequest) -> HTTPReply {
        lock.withLock { arrived += 1 }
        return .later { [self] in
            while !lock.withLock({ open }) { await Task.yield() }
            lock.withLock { finished += 1 }
            return HTTPResponse(status: 200, route: "/")
        }
    }
}

@Suite struct ServerLifetimeTests {
    @Test("a server dropped while a handler's task still runs does not crash when the task ends")
    func droppedWhileSuspended() async throws {
        let handler = GatedHandler()
        var server: HTTPServer? = try HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 1), handler: handler)
        let port = try #require(server?.port)
        let client = Task { try? await RawHTTP.request(port: port, method: "GET", path: "/") }
        for _ in 0..<200_000 where handler.arrivals == 0 { await Task.yield() }
        #expect(handler.arrivals == 1)
        server = nil  // deinit stops the daemon while the request is suspended
        handler.release()
        for _ in 0..<200_000 where handler.finishes == 0 { await Task.yield() }
        #expect(handler.finishes == 1, "the task ended after the daemon stopped, and nothing crashed")
        _ = await client.value
    }
}
