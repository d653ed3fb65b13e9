import Foundation
import OTPCore

/// One HTTP response, with what the request log and metrics need to know about it.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header lines, in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]
    /// The route template the request matched, such as `/v1/verifications/{id}`, for logs and metrics.
    public var route: String
    /// A short note for the log line, such as a verification's id; never a code or a destination.
    public var note: String?
    /// The request's id, echoed in `X-Request-Id` and written on its log line.
    public var requestID: String?

    /// Creates a response.
    public init(
        status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], route: String,
        note: String? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.route = route
        self.note = note
    }
}

/// A handler's answer: a response now, or work whose response the server awaits without blocking.
public enum HTTPReply: Sendable {
    /// Answer at once, on the server's thread.
    case now(HTTPResponse)
    /// Suspend the connection, run the work on Swift's concurrency pool, then answer.
    case later(@Sendable () async -> HTTPResponse)
    /// Answer with a response already made, but no earlier than an instant: the connection is
    /// suspended and one timer thread per server resumes it, with no task per request.
    case at(ContinuousClock.Instant, HTTPResponse)
    /// Hand `start` the request's ``HTTPAnswer``, which any thread sends once: for work that calls
    /// back, such as a store judging a check on its own thread, with no task per request. An answer
    /// sent before `start` returns goes out without suspending the connection.
    case deferred(@Sendable (HTTPAnswer) -> Void)
}

/// The one answer to a suspended request (``HTTPReply/deferred(_:)``), sent from any thread.
public final class HTTPAnswer: Sendable {
    private let deliver: @Sendable (HTTPResponse, ContinuousClock.Instant?) -> Void
    private let sent = Locked(false)

    init(_ deliver: @escaping @Sendable (HTTPResponse, ContinuousClock.Instant?) -> Void) {
        self.deliver = deliver
    }

    /// Sends the response, no earlier than `notBefore` when given; only the first call counts.
    public func send(_ response: HTTPResponse, notBefore: ContinuousClock.Instant? = nil) {
        let first = sent.withLock { sent in
            defer { sent = true }
            return !sent
        }
        // Outside the lock: delivering may run the connection's code.
        if first { deliver(response, notBefore) }
    }
}

/// Answers requests for an ``HTTPServer``.
public protocol HTTPHandler: Sendable {
    /// Answers one request. It runs on a server thread, so it must not block for long: slow work
    /// goes in `.later` (a store that answers within its own lock, as the memory and SQLite stores
    /// judge a check, is fine).
    ///
    /// When `request.bodyTooLarge` is set the server may not have read the body and uses a `.now` answer
    /// only; a `.later` one is replaced by a bare 413.
    func handle(_ request: HTTPRequest) -> HTTPReply
}

/// What the server reports about each finished request, for logs and metrics.
public struct CompletedRequest: Sendable {
    /// The request's method.
    public var method: String
    /// The route template from the response, or the raw path when no response was made.
    public var route: String
    /// The status sent, or `nil` when the connection ended before a response was queued.
    public var status: Int?
    /// From the first byte of the request head to the end of the response.
    public var duration: Duration
    /// The response's note.
    public var note: String?
    /// Whether the response was sent in full.
    public var completed: Bool
    /// The request's id, when the handler gave it one.
    public var requestID: String?
}
