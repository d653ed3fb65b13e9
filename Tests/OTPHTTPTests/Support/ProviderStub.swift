import Foundation
import OTPHTTP

/// A webhook endpoint in this process, on OTPHTTP's own server: it counts requests and answers 200,
/// or 500 while `failing`, and can hold answers until released.
///
/// It answers on the server's own threads, never through Swift's concurrency pool: the suites run
/// side by side, and an answer queued behind hundreds of other tests' work could outlast the
/// sender's timeout and turn into a delivery failure the test did not ask for. A held answer blocks
/// its server thread on purpose (this stand-in has no other work to do).
final class ProviderStub: @unchecked Sendable {
    private final class State: @unchecked Sendable {
        let condition = NSCondition()
        var failing = false
        var received = 0
        var bodies: [[UInt8]] = []
        var signatures: [String] = []
        var holding = false

        func locked<T>(_ body: () -> T) -> T {
            condition.lock()
            defer { condition.unlock() }
            return body()
        }
    }

    private struct Handler: HTTPHandler {
        let state: State

        func handle(_ request: HTTPRequest) -> HTTPReply {
            state.condition.lock()
            state.received += 1
            state.bodies.append(request.body)
            state.signatures.append(request.headers["x-otp-signature"] ?? "")
            while state.holding { state.condition.wait() }
            let fail = state.failing
            state.condition.unlock()
            return .now(HTTPResponse(status: fail ? 500 : 200, route: "/hook"))
        }
    }

    private let state = State()
    private let server: HTTPServer

    /// Listens on `port`, or on a free one when it is 0.
    init(port: Int = 0) throws {
        server = try HTTPServer(
            configuration: HTTPServerConfiguration(
                host: "127.0.0.1", port: port, threads: 2, headerNames: ["X-OTP-Signature"]),
            handler: Handler(state: state))
    }

    var port: Int { server.port }

    var failing: Bool {
        get { state.locked { state.failing } }
        set { state.locked { state.failing = newValue } }
    }

    var received: Int { state.locked { state.received } }

    /// Every request's body and `X-OTP-Signature` header, in arrival order.
    var requests: [(body: [UInt8], signature: String)] {
        state.locked { Array(zip(state.bodies, state.signatures)) }
    }

    /// Waits until `count` requests have arrived (polling; at most `seconds`), and returns them.
    func waitForRequests(_ count: Int, seconds: Double = 10) async -> [(body: [UInt8], signature: String)] {
        let deadline = Date().addingTimeInterval(seconds)
        while received < count, Date() < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return requests
    }

    /// The code in the last message received, read from its `text`.
    func lastCode() -> String? {
        guard let body = state.locked({ state.bodies.last }),
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let text = object["text"] as? String, let range = text.range(of: "code is ")
        else { return nil }
        return String(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// Holds every answer until `release()`.
    func hold() { state.locked { state.holding = true } }

    /// Lets every held answer go.
    func release() {
        state.locked {
            state.holding = false
            state.condition.broadcast()
        }
    }

    func stop() async {
        release()
        await server.stop()
    }
}
