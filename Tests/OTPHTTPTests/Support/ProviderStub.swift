import Foundation
import OTPHTTP

/// A webhook endpoint in this process, on OTPHTTP's own server: it counts requests and answers 200,
/// or 500 while `failing`, and can hold answers until released.
final class ProviderStub: @unchecked Sendable {
    private final class State: @unchecked Sendable {
        let lock = NSLock()
        var failing = false
        var received = 0
        var bodies: [[UInt8]] = []
        var holding = false
        var held: [CheckedContinuation<Void, Never>] = []
    }

    private struct Handler: HTTPHandler {
        let state: State

        func handle(_ request: HTTPRequest) -> HTTPReply {
            .later {
                let (fail, hold) = state.lock.withLock { () -> (Bool, Bool) in
                    state.received += 1
                    state.bodies.append(request.body)
                    return (state.failing, state.holding)
                }
                if hold {
                    await withCheckedContinuation { continuation in
                        let stillHolding = state.lock.withLock { () -> Bool in
                            if state.holding { state.held.append(continuation) }
                            return state.holding
                        }
                        if !stillHolding { continuation.resume() }
                    }
                }
                return HTTPResponse(status: fail ? 500 : 200, route: "/hook")
            }
        }
    }

    private let state = State()
    private let server: HTTPServer

    init() throws {
        server = try HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 2),
            handler: Handler(state: state))
    }

    var port: Int { server.port }

    var failing: Bool {
        get { state.lock.withLock { state.failing } }
        set { state.lock.withLock { state.failing = newValue } }
    }

    var received: Int { state.lock.withLock { state.received } }

    /// The code in the last message received, read from its `text`.
    func lastCode() -> String? {
        guard let body = state.lock.withLock({ state.bodies.last }),
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let text = object["text"] as? String, let range = text.range(of: "code is ")
        else { return nil }
        return String(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// Holds every answer until `release()`.
    func hold() { state.lock.withLock { state.holding = true } }

    /// Lets every held answer go.
    func release() {
        let waiting = state.lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            state.holding = false
            defer { state.held = [] }
            return state.held
        }
        for continuation in waiting { continuation.resume() }
    }

    func stop() async {
        release()
        await server.stop()
    }
}
