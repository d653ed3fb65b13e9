/// When the request each open connection is receiving must have arrived in full.
///
/// libmicrohttpd's connection timeout counts idle time only, so a client that sends a byte now and then
/// keeps a connection for ever. Here a request gets the timeout from the moment its connection is ready
/// for it: the accept for a connection's first request, the end of the previous answer for the next ones
/// (so idle time on a kept-alive connection counts). The clock stops once the request has arrived: time
/// spent by the handler or sending the answer is not the client's to limit here.
///
/// Connections are known by their socket. A socket number is reused only after libmicrohttpd has closed
/// the socket, and it reports the close first, so an entry always names the connection it was made for.
/// The owner feeds the events and shuts down the sockets ``expire(at:)`` returns.
struct RequestDeadlines {
    /// A connection's clock: running until its request's deadline, or stopped while the request is answered.
    private enum Clock {
        case running(until: ContinuousClock.Instant)
        case stopped
    }

    /// How long a whole request may take.
    let timeout: Duration
    private var clocks: [Int32: Clock] = [:]

    init(timeout: Duration) {
        self.timeout = timeout
    }

    /// The connections known.
    var count: Int { clocks.count }

    /// A connection was accepted: its first request's clock starts.
    mutating func opened(socket: Int32, at now: ContinuousClock.Instant) {
        clocks[socket] = .running(until: now + timeout)
    }

    /// The request on `socket` has arrived in full (or will not be read further): its clock stops.
    mutating func arrived(socket: Int32) {
        if clocks[socket] != nil { clocks[socket] = .stopped }
    }

    /// The answer on `socket` was sent or abandoned: the next request's clock starts.
    mutating func answered(socket: Int32, at now: ContinuousClock.Instant) {
        if clocks[socket] != nil { clocks[socket] = .running(until: now + timeout) }
    }

    /// The connection on `socket` is closing; its socket number may be reused once this returns.
    mutating func closed(socket: Int32) {
        clocks[socket] = nil
    }

    /// The sockets whose request is late at `now`, each returned once: the owner shuts them down.
    mutating func expire(at now: ContinuousClock.Instant) -> [Int32] {
        var late: [Int32] = []
        for (socket, clock) in clocks {
            if case .running(let deadline) = clock, deadline <= now { late.append(socket) }
        }
        for socket in late { clocks[socket] = .stopped }
        return late
    }
}
