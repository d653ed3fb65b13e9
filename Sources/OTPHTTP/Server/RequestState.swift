import Foundation
import OTPCore

/// What the server keeps about one request between libmicrohttpd's calls.
///
/// The connection's thread owns every field but `pending`, which the task that answers a suspended
/// request sets before resuming the connection; a lock guards it.
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
    var bodyTooLarge = false
    /// Set when the head frames the body in a way the server refuses.
    ///
    /// Both `Content-Length` and `Transfer-Encoding` (400, request smuggling), or a transfer coding
    /// other than `chunked` (501). The answer goes before the body, and the connection is closed.
    var framingRefusal: APIError?
    /// Set once a response is queued: its status, route and note for the log.
    var sent: (status: Int, route: String, note: String?)?
    /// Set while the request waits for a `.later` answer.
    var suspended = false
    /// Set when the answer was written on the socket in full, past libmicrohttpd.
    var answeredOnSocket = false
    private let lock = NSLock()
    private var pending: HTTPResponse?

    init(method: String, path: String, started: ContinuousClock.Instant, socket: Int32?) {
        self.method = method
        self.path = path
        self.started = started
        self.socket = socket
    }

    /// Stores the answer of a suspended request (any thread).
    func setPending(_ response: HTTPResponse) {
        lock.withLock { pending = response }
    }

    /// Takes the stored answer, if any (the connection's thread).
    func takePending() -> HTTPResponse? {
        lock.withLock {
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
