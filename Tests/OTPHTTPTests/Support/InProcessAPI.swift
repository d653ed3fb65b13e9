import Foundation
import OTPCore
import OTPEngine

@testable import OTPHTTP

/// The API without a socket: requests go straight to the handler, its router and its replies.
///
/// Every kind of reply is resolved as the server would send it: at once, after its task, or
/// when the store calls back. A floor's instant is not waited for; it is kept, so a test can
/// see that an answer was held.
struct InProcessAPI {
    let handler: APIHandler
    let store: MemoryStore
    let sender: MemorySender
    let clock: ManualClock

    /// An answer as a client would read it.
    struct Answer {
        var response: HTTPResponse
        /// The instant a held answer was due, when it was held.
        var heldUntil: ContinuousClock.Instant?

        var status: Int { response.status }
        var text: String { String(decoding: response.body, as: UTF8.self) }
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        }
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
        func header(_ name: String) -> String? {
            response.headers.last { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    static let key = "in-process-key"

    init(
        policy: Policy = .default, checkFloor: Duration = .zero, recordsEvents: Bool = false,
        maxEventBacklog: Int? = nil, keys: APIKeys = APIKeys([InProcessAPI.key])
    ) {
        clock = ManualClock()
        store = MemoryStore(recordsEvents: recordsEvents)
        sender = MemorySender()
        let clock = self.clock
        let verifier = Verifier(
            store: store, sender: sender, policy: policy, secret: Array(repeating: 5, count: 32),
            now: { clock.date })
        handler = APIHandler(
            verifier: verifier, keys: KeyRing(keys), metrics: ServerMetrics(), checkFloor: checkFloor,
            maxEventBacklog: maxEventBacklog)
    }

    /// Sends one request through the handler and waits for its answer.
    func call(
        _ method: String, _ path: String, json: String? = nil, key: String? = InProcessAPI.key,
        peer: String = "192.0.2.10", query: [String: String] = [:]
    ) async -> Answer {
        var headers: [String: String] = [:]
        if let key { headers["authorization"] = "Bearer \(key)" }
        if json != nil { headers["content-type"] = "application/json" }
        let request = HTTPRequest(
            method: method, path: path, headers: headers, body: Array((json ?? "").utf8), peerAddress: peer,
            query: query)
        switch handler.handle(request) {
        case .now(let response): return Answer(response: response)
        case .later(let work): return Answer(response: await work())
        case .at(let instant, let response): return Answer(response: response, heldUntil: instant)
        case .deferred(let start):
            return await withCheckedContinuation { continuation in
                start(
                    HTTPAnswer { response, notBefore in
                        continuation.resume(returning: Answer(response: response, heldUntil: notBefore))
                    })
            }
        }
    }
}
