import CMicroHTTPD
import Foundation
import OTPCore

/// The part of a server that libmicrohttpd's callbacks reach through their closure pointer.
final class ServerCore: @unchecked Sendable {
    let handler: any HTTPHandler
    let observer: @Sendable (CompletedRequest) -> Void
    let bodyLimit: Int
    let headerNames: [String]
    let queryNames: [String]
    /// Answers connections held until a set instant (``HTTPReply/at(_:_:)``).
    let answerTimer = AnswerTimer()
    /// The requests in flight and waiting, whether a stop has begun, and each connection's deadline.
    private let traffic: Locked<Traffic>
    /// Orders resuming a connection against stopping the daemon; never held while libmicrohttpd
    /// calls back, so it cannot deadlock with ``traffic``.
    private let suspensions = Locked(Suspensions())

    private struct Traffic {
        var inFlight = 0
        var suspended = 0
        var stopping = false
        var deadlines: RequestDeadlines
    }

    private struct Suspensions {
        var daemonStopped = false
        /// Connections suspended until a handler's task answers, by address.
        var connections: [UInt: ConnectionHandle] = [:]
    }

    /// The `Date` header of every answer, from the server's clock.
    let date: HTTPDate

    init(
        handler: any HTTPHandler, observer: @escaping @Sendable (CompletedRequest) -> Void, bodyLimit: Int,
        headerNames: [String], queryNames: [String] = [], requestTimeout: Duration,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.date = HTTPDate(clock: clock)
        self.queryNames = queryNames
        self.handler = handler
        self.observer = observer
        self.bodyLimit = bodyLimit
        self.headerNames = headerNames.map { $0.lowercased() }
        self.traffic = Locked(Traffic(deadlines: RequestDeadlines(timeout: requestTimeout)))
    }

    /// Counts and reports requests started, finished and waiting on a task.
    var counts: (inFlight: Int, suspended: Int) {
        traffic.withLock { ($0.inFlight, $0.suspended) }
    }

    /// Whether a graceful stop has begun (responses then close their connection).
    var isStopping: Bool {
        traffic.withLock { $0.stopping }
    }

    /// Resumes a suspended connection, unless the daemon was stopped (a server dropped or stopped
    /// while a handler's task still ran): its connections are gone, and touching one would crash.
    func resume(_ connection: ConnectionHandle) {
        suspensions.withLock { suspensions in
            guard suspensions.connections.removeValue(forKey: UInt(bitPattern: connection.raw)) != nil,
                !suspensions.daemonStopped
            else { return }
            MHD_resume_connection(connection.raw)
        }
    }

    /// Records a connection suspended until its task answers.
    func suspended(_ connection: ConnectionHandle) {
        suspensions.withLock { $0.connections[UInt(bitPattern: connection.raw)] = connection }
    }

    /// Marks the daemon stopped before it is: no task resumes a connection from now on, and every
    /// connection still waiting on a task is resumed here (without an answer), since libmicrohttpd
    /// refuses to stop with suspended connections.
    func daemonWillStop() {
        suspensions.withLock { suspensions in
            suspensions.daemonStopped = true
            for connection in suspensions.connections.values { MHD_resume_connection(connection.raw) }
            suspensions.connections.removeAll()
        }
    }

    func beginStopping() {
        traffic.withLock { $0.stopping = true }
    }

    func requestBegan() {
        traffic.withLock { $0.inFlight += 1 }
    }

    func requestEnded() {
        traffic.withLock { $0.inFlight -= 1 }
    }

    func suspensionBegan() {
        traffic.withLock { $0.suspended += 1 }
    }

    func suspensionEnded() {
        traffic.withLock { $0.suspended -= 1 }
    }

    /// The open connections whose requests are timed.
    var timedConnections: Int {
        traffic.withLock { $0.deadlines.count }
    }

    func connectionOpened(socket: Int32) {
        traffic.withLock { $0.deadlines.opened(socket: socket, at: .now) }
    }

    func requestArrived(socket: Int32?) {
        guard let socket else { return }
        traffic.withLock { $0.deadlines.arrived(socket: socket) }
    }

    func requestAnswered(socket: Int32?) {
        guard let socket else { return }
        traffic.withLock { $0.deadlines.answered(socket: socket, at: .now) }
    }

    func connectionClosed(socket: Int32) {
        traffic.withLock { $0.deadlines.closed(socket: socket) }
    }

    /// Cuts off every connection whose request has not arrived in time.
    ///
    /// The sockets are shut down under the lock: libmicrohttpd reports a connection's close (which takes the
    /// lock) before it closes the socket, so no socket shut down here can have been closed and its number
    /// given to another file.
    func cutLateConnections() {
        traffic.withLock { traffic in
            for socket in traffic.deadlines.expire(at: .now) {
                ConnectionSocket.cut(socket)
            }
        }
    }
}

/// libmicrohttpd's access handler: builds the request, reads the body, queues the answer.
///
/// It is a global function because libmicrohttpd calls it on its own threads.
func otpAccessHandler(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let uploadDataSize, let requestContext else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    guard let context = requestContext.pointee else {
        let state = RequestState(
            method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
            started: ContinuousClock.now, socket: ConnectionSocket.descriptor(of: connection))
        requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
        core.requestBegan()
        switch readHead(of: connection, into: state, core: core) {
        case .readBody:
            return .YES
        case .refuse(let refusal):
            core.requestArrived(socket: state.socket)
            return queue(
                APIResponses.error(refusal, route: Route.unmatched), on: connection, state: state, core: core)
        case .refuseOversized:
            // Answered before the body: libmicrohttpd reads no more of this connection.
            core.requestArrived(socket: state.socket)
            return queue(oversizedAnswer(state, core), on: connection, state: state, core: core)
        }
    }
    let state = Unmanaged<RequestState>.fromOpaque(context).takeUnretainedValue()
    let pending = state.takePending()
    let size = uploadDataSize.pointee
    switch state.machine.called(
        size: size, bodyCount: state.body.count, limit: core.bodyLimit, hasPending: pending != nil)
    {
    case .queuePending:
        guard let pending else { return .NO }
        return queue(pending, on: connection, state: state, core: core)
    case .discard:
        uploadDataSize.pointee = 0
        return .YES
    case .refuseOversized:
        return refuseGrowingBody(state, core)
    case .append:
        if let uploadData {
            uploadData.withMemoryRebound(to: UInt8.self, capacity: size) {
                state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size))
            }
        }
        uploadDataSize.pointee = 0
        return .YES
    case .handle:
        break
    }
    core.requestArrived(socket: state.socket)
    switch core.handler.handle(request(from: state)) {
    case .now(let response):
        return queue(response, on: connection, state: state, core: core)
    case .later(let work):
        // A task on Swift's pool. (Started on this thread instead, `Task.immediate`, it was measured
        // slower: the task is made all the same, and the thread serves no other connection meanwhile.)
        return deferAnswer(on: connection, state: state, core: core) { answer in
            Task { answer.send(await work()) }
        }
    case .deferred(let start):
        return deferAnswer(on: connection, state: state, core: core, start)
    case .at(let due, let response):
        guard ContinuousClock.now < due else {
            return queue(response, on: connection, state: state, core: core)
        }
        let handle = suspend(connection, state: state, core: core)
        answerSuspended(handle, with: response, at: due, state: state, core: core)
        return .YES
    }
}

/// Suspends a connection until its answer comes from another thread.
private func suspend(_ connection: OpaquePointer, state: RequestState, core: ServerCore) -> ConnectionHandle {
    state.machine.suspended()
    core.suspensionBegan()
    MHD_suspend_connection(connection)
    let handle = ConnectionHandle(raw: connection)
    core.suspended(handle)
    return handle
}

/// Answers a suspended connection: at once, or at `due` on the server's timer thread.
private func answerSuspended(
    _ handle: ConnectionHandle, with response: HTTPResponse, at due: ContinuousClock.Instant?,
    state: RequestState, core: ServerCore
) {
    let finish: @Sendable () -> Void = {
        state.setPending(response)
        core.suspensionEnded()
        core.resume(handle)
    }
    if let due, ContinuousClock.now < due {
        core.answerTimer.schedule(at: due, finish)
    } else {
        finish()
    }
}

/// Runs `start` with the request's answer, then answers at once if `start` already did (and its
/// instant has come), or suspends the connection until the answer comes from another thread.
private func deferAnswer(
    on connection: OpaquePointer, state: RequestState, core: ServerCore,
    _ start: (HTTPAnswer) -> Void
) -> MHD_Result {
    let handoff = AnswerHandoff()
    start(HTTPAnswer { response, due in handoff.answer(response, due) })
    if let response = handoff.takeEarly(at: ContinuousClock.now) {
        return queue(response, on: connection, state: state, core: core)
    }
    let handle = suspend(connection, state: state, core: core)
    handoff.suspended { response, due in
        answerSuspended(handle, with: response, at: due, state: state, core: core)
    }
    return .YES
}

/// Hands a deferred answer from the thread that makes it to the connection's: kept while the
/// handler still runs (so it answers without suspending), delivered once the connection is suspended.
final class AnswerHandoff: @unchecked Sendable {
    typealias Deliver = @Sendable (HTTPResponse, ContinuousClock.Instant?) -> Void

    private enum Stage: Sendable {
        case inHandler
        case answered(HTTPResponse, ContinuousClock.Instant?)
        case suspended(Deliver)
        case done
    }

    private let stage = Locked(Stage.inHandler)

    /// The answer, from any thread: kept, or delivered when the connection already waits.
    func answer(_ response: HTTPResponse, _ due: ContinuousClock.Instant?) {
        let deliver: Deliver? = stage.withLock { stage in
            switch stage {
            case .inHandler:
                stage = .answered(response, due)
                return nil
            case .suspended(let deliver):
                stage = .done
                return deliver
            case .answered, .done:
                return nil
            }
        }
        deliver?(response, due)
    }

    /// The answer given while the handler ran, taken if there was one whose instant has come by
    /// `now` (the connection's thread); one held for later stays for ``suspended(_:)``.
    func takeEarly(at now: ContinuousClock.Instant) -> HTTPResponse? {
        stage.withLock { stage in
            guard case .answered(let response, let due) = stage, due.map({ now >= $0 }) ?? true else {
                return nil
            }
            stage = .done
            return response
        }
    }

    /// Once the connection is suspended: delivers an answer that came meanwhile, or a later one.
    func suspended(_ deliver: @escaping Deliver) {
        let early: (HTTPResponse, ContinuousClock.Instant?)? = stage.withLock { stage in
            switch stage {
            case .inHandler:
                stage = .suspended(deliver)
                return nil
            case .answered(let response, let due):
                stage = .done
                return (response, due)
            case .suspended, .done:
                return nil
            }
        }
        if let (response, due) = early { deliver(response, due) }
    }
}

/// libmicrohttpd's completion callback: reports the request and frees its state.
func otpRequestCompleted(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ reason: MHD_RequestTerminationCode
) {
    guard let cls, let requestContext, let context = requestContext.pointee else { return }
    requestContext.pointee = nil
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let state = Unmanaged<RequestState>.fromOpaque(context).takeRetainedValue()
    core.requestAnswered(socket: state.socket)
    let sent = state.machine.sent
    core.observer(
        CompletedRequest(
            method: state.method, route: sent?.route ?? "(no response)", status: sent?.status,
            duration: ContinuousClock.now - state.started, note: sent?.note,
            completed: reason == .REQUEST_TERMINATED_COMPLETED_OK || sent?.onSocket == true,
            requestID: sent?.requestID))
    core.requestEnded()
}

/// libmicrohttpd's accept policy: once a graceful stop has begun, every new connection is refused.
func otpAcceptPolicy(
    _ cls: UnsafeMutableRawPointer?, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t
) -> MHD_Result {
    guard let cls else { return .YES }
    return Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().isStopping ? .NO : .YES
}

/// libmicrohttpd's connection callback: starts and ends the timing of each connection's requests.
func otpConnectionNotified(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection, let socket = ConnectionSocket.descriptor(of: connection) else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    switch code {
    case .CONNECTION_NOTIFY_STARTED: core.connectionOpened(socket: socket)
    case .CONNECTION_NOTIFY_CLOSED: core.connectionClosed(socket: socket)
    @unknown default: break
    }
}

/// Reads the head into `state` and has its machine judge the framing and the declared length.
private func readHead(
    of connection: OpaquePointer, into state: RequestState, core: ServerCore
) -> RequestMachine.HeadAction {
    // Names go to C through `withCString`: an implicit conversion copies a short string to the heap.
    for name in core.queryNames {
        if let value = name.withCString({ MHD_lookup_connection_value(connection, .GET_ARGUMENT_KIND, $0) }) {
            state.query[name] = String(cString: value)
        }
    }
    // Made at its size: `reserveCapacity` on the empty one cost more (both run the unspecialized generic).
    state.headers = Dictionary(minimumCapacity: core.headerNames.count)
    for name in core.headerNames {
        if let value = name.withCString({ MHD_lookup_connection_value(connection, .HEADER_KIND, $0) }) {
            state.headers[name] = String(cString: value)
        }
    }
    // A list-valued field sent on several lines is one list (RFC 9110, 5.3): a proxy that adds its
    // own `X-Forwarded-For` line after the client's must be read from that last line, not the first.
    for name in HTTPServerConfiguration.listHeaderNames where state.headers[name] != nil {
        // Larger than the whole head libmicrohttpd's pool takes, so the lines always fit; if they
        // ever did not, the field is dropped rather than read from the client's first line.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 20_000) { buffer in
            guard let base = buffer.baseAddress else { return }
            let lines = name.withCString { otp_mhd_joined_header(connection, $0, base, buffer.count) }
            if lines > 1 {
                state.headers[name] = String(cString: base)
            } else if lines < 0 {
                state.headers[name] = nil
            }
        }
    }
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
        guard let base = buffer.baseAddress, otp_mhd_client_address(connection, base, buffer.count) == 0
        else {
            return
        }
        base[buffer.count - 1] = 0
        state.peerAddress = String(cString: base)
    }
    let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length")
    let refusal = MHD_lookup_connection_value(connection, .HEADER_KIND, "Transfer-Encoding").flatMap {
        framingRefusal(transferEncoding: String(cString: $0), hasContentLength: length != nil)
    }
    return state.machine.headRead(
        framing: refusal, declaredLength: length.flatMap { Int(String(cString: $0)) }, limit: core.bodyLimit)
}

/// Why a head's framing is refused, or `nil` for a plain chunked body: a `Transfer-Encoding`
/// beside a `Content-Length` is 400 (two framings, the way requests are smuggled past proxies),
/// and any coding but `chunked` alone is 501.
func framingRefusal(transferEncoding: String, hasContentLength: Bool) -> APIError? {
    if hasContentLength {
        return APIError(
            code: .invalidRequest,
            message: "A request must not have both Content-Length and Transfer-Encoding.")
    }
    guard transferEncoding.trimmingCharacters(in: .whitespaces).lowercased() == "chunked" else {
        return APIError(
            code: .notImplemented, message: "The only transfer coding accepted is chunked.")
    }
    return nil
}

private func request(from state: RequestState) -> HTTPRequest {
    HTTPRequest(
        method: state.method, path: state.path, headers: state.headers, body: state.body,
        peerAddress: state.peerAddress, bodyTooLarge: state.machine.isOversized, query: state.query)
}

/// The handler's answer to a request whose body is over the limit (a bare 413 if it would answer later).
private func oversizedAnswer(_ state: RequestState, _ core: ServerCore) -> HTTPResponse {
    switch core.handler.handle(request(from: state)) {
    case .now(let answer), .at(_, let answer): answer
    case .later, .deferred: HTTPResponse(status: 413, route: state.path)
    }
}

/// Refuses a body that grows past the limit while it arrives (a chunked one), without reading the rest.
///
/// libmicrohttpd cannot queue a response while a body is arriving, so the answer is written on the socket
/// here, and `NO` has libmicrohttpd close the connection.
private func refuseGrowingBody(_ state: RequestState, _ core: ServerCore) -> MHD_Result {
    state.body = []
    let response = oversizedAnswer(state, core)
    let written = state.socket.map { ConnectionSocket.sendLast(response, on: $0) } ?? false
    state.machine.answered(
        status: response.status, route: response.route, note: response.note, onSocket: written)
    return .NO
}

private func queue(
    _ response: HTTPResponse, on connection: OpaquePointer, state: RequestState, core: ServerCore
) -> MHD_Result {
    state.machine.answered(
        status: response.status, route: response.route, note: response.note, requestID: response.requestID)
    let made = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for header in response.headers {
        _ = header.name.withCString { name in
            header.value.withCString { value in MHD_add_response_header(made, name, value) }
        }
    }
    // libmicrohttpd adds its own Date (the machine's clock) only to answers that have none.
    _ = core.date.now.withCString { MHD_add_response_header(made, "Date", $0) }
    if core.isStopping || state.machine.closesConnection {
        _ = MHD_add_response_header(made, "Connection", "close")
    }
    return MHD_queue_response(connection, UInt32(response.status), made)
}
