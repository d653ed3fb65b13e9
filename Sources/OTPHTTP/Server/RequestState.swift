import Foundation
import OTPCore

/// What the server keeps about one request between libmicrohttpd's calls: the head, the body as it
/// arrives, and the ``RequestMachine`` that says what each call does.
///
/// The connection's thread owns every field but `pending`, which the thread that answers a
/// suspended request sets before resuming the connection; a lock guards it.
final class RequestState: @unchecked Sendable {
    let method: String
    let path: String
    let started: ContinuousClock.Instant
    /// The connection's socket, or `nil` when libmicrohttpd does not tell it.
    let socket: Int32?
    var headers: [String: String] = [:]
    var query: [String: String] = [:]
    var peerAddress = ""
    var body: [UInt8] = []
    /// Where the request is: reading, waiting for its answer, or answered.
    var machine = RequestMachine()
    private let pending = Locked<HTTPResponse?>(nil)

    init(method: String, path: String, started: ContinuousClock.Instant, socket: Int32?) {
        self.method = method
        self.path = path
        self.started = started
        self.socket = socket
    }

    /// Stores the answer of a suspended request (any thread).
    func setPending(_ response: HTTPResponse) {
        pending.withLock { $0 = response }
    }

    /// Takes the stored answer, if any (the connection's thread).
    func takePending() -> HTTPResponse? {
        pending.withLock { pending in
            defer { pending = nil }
            return pending
        }
    }
}

/// A libmicrohttpd connection handle carried to the task that resumes it.
///
/// The connection stays valid while suspended; only `MHD_resume_connection` touches it off its thread.
struct ConnectionHandle: @unchecked Sendable {
    let raw: OpaquePointer
}
