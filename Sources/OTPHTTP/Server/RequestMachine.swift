import OTPCore

/// One request's life on its connection, as a value: each of libmicrohttpd's calls is an event, and
/// the machine answers what the connection's thread does next.
///
/// The thread that owns the connection feeds it; the I/O (reading the body, queuing an answer,
/// suspending and resuming) stays with that thread. The phases:
///
/// - `reading`: the body arrives, piece by piece, until libmicrohttpd calls with none left;
/// - `waiting`: the handler answers from another thread, and the connection is suspended;
/// - `answered`: an answer is queued (or written on the socket), and what arrives later is dropped.
///
/// A request refused before its body (two framings, a coding other than chunked, a declared length
/// over the limit) or while it arrives (a chunked body growing past the limit) closes its connection
/// after the answer.
struct RequestMachine: Sendable, Equatable {
    /// Where the request is.
    enum Phase: Sendable, Equatable {
        case reading
        case waiting
        case answered(SentAnswer)
    }

    /// Why the connection closes after its answer.
    enum Refusal: Sendable, Equatable {
        /// The head frames the body in a way the server refuses.
        case framing(APIError)
        /// The body is over the limit, declared or as it arrived.
        case oversized
    }

    /// What was answered, for the request's log line and metrics.
    struct SentAnswer: Sendable, Equatable {
        var status: Int
        var route: String
        var note: String?
        /// Whether the answer was written on the socket in full, past libmicrohttpd.
        var onSocket = false
        /// The request's id, when the handler gave it one.
        var requestID: String?
    }

    /// What to do once the head is read.
    enum HeadAction: Sendable, Equatable {
        /// Read the body.
        case readBody
        /// Answer with this error before the body.
        case refuse(APIError)
        /// Answer the handler's 413 before the body.
        case refuseOversized
    }

    /// What to do with a later call of the access handler.
    enum CallAction: Sendable, Equatable {
        /// Keep this piece of the body.
        case append
        /// Drop it: the request is answered or waits for its answer.
        case discard
        /// The body grew past the limit: answer 413 on the socket and close.
        case refuseOversized
        /// The body is complete: hand the request to the handler.
        case handle
        /// The answer a suspended request waited for has come: queue it.
        case queuePending
    }

    private(set) var phase = Phase.reading
    private(set) var refusal: Refusal?

    /// Whether the body is over the limit (the handler sees it as `bodyTooLarge`).
    var isOversized: Bool { refusal == .oversized }

    /// Whether the answer closes the connection.
    var closesConnection: Bool { refusal != nil }

    /// What was answered, once answered.
    var sent: SentAnswer? {
        if case .answered(let answer) = phase { answer } else { nil }
    }

    /// The head was read: its framing refusal, if any, and the declared length.
    mutating func headRead(framing: APIError?, declaredLength: Int?, limit: Int) -> HeadAction {
        if let framing {
            refusal = .framing(framing)
            return .refuse(framing)
        }
        if let declaredLength, declaredLength > limit {
            refusal = .oversized
            return .refuseOversized
        }
        return .readBody
    }

    /// libmicrohttpd called again with `size` bytes of body (0 once the body is complete), the body
    /// holding `bodyCount` bytes so far; `hasPending` when a suspended request's answer has come.
    mutating func called(size: Int, bodyCount: Int, limit: Int, hasPending: Bool) -> CallAction {
        switch phase {
        case .waiting:
            return hasPending ? .queuePending : .discard
        case .answered:
            return .discard
        case .reading:
            guard size > 0 else { return .handle }
            guard bodyCount + size <= limit else {
                refusal = .oversized
                return .refuseOversized
            }
            return .append
        }
    }

    /// The connection was suspended until the answer comes from another thread.
    mutating func suspended() {
        if case .reading = phase { phase = .waiting }
    }

    /// An answer was queued, or written on the socket (`onSocket`).
    mutating func answered(
        status: Int, route: String, note: String?, onSocket: Bool = false, requestID: String? = nil
    ) {
        phase = .answered(
            SentAnswer(status: status, route: route, note: note, onSocket: onSocket, requestID: requestID))
    }
}
