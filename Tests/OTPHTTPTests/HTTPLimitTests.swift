import Foundation
import OTPEngine
import Testing

@testable import OTPHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Limits the HTTP server holds every connection to, seen from a raw socket: the body size while a chunked
/// body streams in, the time a whole request may take, and the connections one address may hold.
@Suite struct HTTPLimitTests {
    @Test("a chunked body is refused with 413 payload_too_large at 16 KiB, without reading the rest")
    func chunkedBodyStopsAtTheLimit() async throws {
        try await Harness.with { harness in
            let head =
                "POST /v1/verifications HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(harness.key)\r\n"
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            let outcome = try await LimitClient.streamChunks(
                port: harness.port, head: head, upTo: LimitClient.streamCap)
            #expect(
                outcome.sent < LimitClient.streamCap,
                "the client sent \(outcome.sent) bytes and the server was still reading")
            #expect(outcome.response?.status == 413)
            #expect(outcome.response?.errorCode == "payload_too_large")
            #expect(outcome.response?.headers["connection"]?.lowercased() == "close")
            #expect(outcome.closed, "the connection stayed open after the 413")
            #expect(outcome.seconds < 10)
            #expect(await settled(harness.server.server), "the server still times a closed connection")
        }
    }

    @Test("Content-Length beside Transfer-Encoding is 400 and the connection closed; nothing is started")
    func twoFramings() async throws {
        try await Harness.with { harness in
            let body = #"{"to":"+12015550100"}"#
            let chunked = String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n"
            let head =
                "POST /v1/verifications HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(harness.key)\r\n"
                + "Content-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
            let (seconds, received) = try await RawHTTP.sendAndWaitForClose(
                port: harness.port, Array((head + chunked).utf8))
            let text = String(decoding: received, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 400"), "\(text.prefix(80))")
            #expect(text.lowercased().contains("connection: close"))
            #expect(text.contains(#""code":"invalid_request""#))
            #expect(seconds < 5, "the server closed the connection at once")
            #expect(harness.sends(for: "") == 0)
            #expect(((try? OutboxSender.entries(path: harness.outbox)) ?? []).isEmpty, "nothing was started")
        }
    }

    @Test("a transfer coding other than chunked is 501 not_implemented at once, and the connection closed")
    func unknownCoding() async throws {
        try await Harness.with { harness in
            for coding in ["gzip", "gzip, chunked", "identity"] {
                let head =
                    "POST /v1/verifications HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(harness.key)\r\n"
                    + "Content-Type: application/json\r\nTransfer-Encoding: \(coding)\r\n\r\n"
                let (seconds, received) = try await RawHTTP.sendAndWaitForClose(
                    port: harness.port, Array((head + #"{"to":"+12015550100"}"#).utf8))
                let text = String(decoding: received, as: UTF8.self)
                #expect(text.hasPrefix("HTTP/1.1 501"), "\(coding): \(text.prefix(80))")
                #expect(text.contains(#""code":"not_implemented""#))
                #expect(seconds < 5, "\(coding): answered at once, not after the connection timeout")
            }
        }
    }

    @Test("a request head of 12 KiB fits a connection's pool and is answered; one of 40 KiB is refused")
    func largeHeads() async throws {
        try await Harness.with { harness in
            // `/` is no route: the API's own 404 shows the head was read and handed on.
            let fits = try await LimitClient.head(port: harness.port, headerBytes: 12 * 1024)
            #expect(
                fits.response?.status == 404, "a 12 KiB head: \(String(describing: fits.response?.status))")
            #expect(fits.response?.errorCode == "not_found")
            let over = try await LimitClient.head(port: harness.port, headerBytes: 40 * 1024)
            // libmicrohttpd answers 431 itself, before any handler sees the request.
            #expect(
                over.response?.status == 431, "a 40 KiB head: \(String(describing: over.response?.status))")
            #expect(over.closed, "the connection stayed open after a 40 KiB head")
            #expect(await settled(harness.server.server), "the server still times a closed connection")
        }
    }

    @Test(
        "a request trickled in faster than the idle timeout is cut off once the connection timeout has passed",
        arguments: [TricklePhase.head, .body])
    func trickledRequest(phase: TricklePhase) async throws {
        try await Harness.with(connectionTimeout: .seconds(1)) { harness in
            let outcome = try await LimitClient.trickle(
                port: harness.port, prefix: phase.prefix, every: .milliseconds(200), giveUpAfter: .seconds(10)
            )
            #expect(outcome.closed, "the connection was still open after \(outcome.seconds) s of trickling")
            #expect(outcome.seconds < 6, "closed after \(outcome.seconds) s; the timeout is 1 s")
            #expect(outcome.seconds > 0.8, "closed after \(outcome.seconds) s, before the timeout")
            #expect(await settled(harness.server.server), "the server still times a closed connection")
        }
    }

    @Test("connections past the per-address limit are closed at once; those within it keep working")
    func perAddressLimit() async throws {
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(
                port: 0, connectionTimeout: .seconds(30), maxConnectionsPerAddress: 3),
            handler: Hello())
        let port = server.port
        let outcome: LimitClient.PerAddressOutcome
        do {
            outcome = try await LimitClient.perAddress(port: port, within: 3, beyond: 2)
        } catch {
            await server.stop()
            throw error
        }
        let forgotten = await settled(server)
        await server.stop()
        #expect(forgotten, "the server still times a closed connection")
        #expect(outcome.firstAnswers == [200, 200, 200])
        #expect(outcome.extraClosed == [true, true], "a connection past the limit stayed open")
        #expect(outcome.againAnswers == [200, 200, 200])
        #expect(outcome.freedSlotAnswer == 200, "a slot freed by a closed connection was not reusable")
    }

    @Test("a per-address limit of 0, the default, means none; a negative one refuses to start")
    func perAddressLimitOff() async throws {
        #expect(HTTPServerConfiguration().maxConnectionsPerAddress == 0)
        #expect(throws: HTTPServerError.self) {
            try HTTPServer(
                configuration: HTTPServerConfiguration(port: 0, maxConnectionsPerAddress: -1),
                handler: Hello())
        }
        let server = try HTTPServer(configuration: HTTPServerConfiguration(port: 0), handler: Hello())
        let port = server.port
        let outcome: LimitClient.PerAddressOutcome
        do {
            outcome = try await LimitClient.perAddress(port: port, within: 6, beyond: 0)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        #expect(outcome.againAnswers == [200, 200, 200, 200, 200, 200])
    }
}

@Suite struct RequestDeadlinesTests {
    let start = ContinuousClock.now

    @Test("a connection's first request is timed from the accept")
    func firstRequest() {
        var deadlines = RequestDeadlines(timeout: .seconds(10))
        deadlines.opened(socket: 7, at: start)
        #expect(deadlines.expire(at: start + .seconds(9.9)).isEmpty)
        #expect(deadlines.expire(at: start + .seconds(10)) == [7])
        #expect(deadlines.expire(at: start + .seconds(11)).isEmpty, "a late socket is returned once")
    }

    @Test("the clock stops once the request has arrived, and restarts when its answer is done")
    func keptAlive() {
        var deadlines = RequestDeadlines(timeout: .seconds(10))
        deadlines.opened(socket: 7, at: start)
        deadlines.arrived(socket: 7)
        #expect(
            deadlines.expire(at: start + .seconds(60)).isEmpty, "a slow handler is not the client's fault")
        deadlines.answered(socket: 7, at: start + .seconds(60))
        #expect(deadlines.expire(at: start + .seconds(69)).isEmpty)
        #expect(deadlines.expire(at: start + .seconds(70)) == [7])
    }

    @Test("a closed connection is forgotten, and events for unknown sockets add nothing")
    func closed() {
        var deadlines = RequestDeadlines(timeout: .seconds(1))
        deadlines.opened(socket: 7, at: start)
        deadlines.opened(socket: 8, at: start)
        deadlines.closed(socket: 7)
        deadlines.answered(socket: 9, at: start)
        deadlines.arrived(socket: 10)
        #expect(deadlines.count == 1)
        #expect(deadlines.expire(at: start + .seconds(5)) == [8])
        deadlines.closed(socket: 8)
        #expect(deadlines.count == 0)
    }
}

@Suite struct ConnectionSocketTests {
    @Test(
        "an answer written past libmicrohttpd is HTTP/1.1 with its own length, a date, and Connection: close")
    func wireBytes() {
        let response = HTTPResponse(
            status: 413, headers: [("Content-Type", "application/json"), ("Connection", "keep-alive")],
            body: Array("{}".utf8), route: "/v1/verifications")
        let text = String(decoding: ConnectionSocket.wireBytes(of: response), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 413 Content Too Large\r\nDate: "))
        #expect(
            text.hasSuffix(
                "\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"))
        #expect(!text.contains("keep-alive"))
        #expect(ConnectionSocket.httpDate(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}

/// Waits until `server` has seen its clients' connections close and forgotten them; false after 5 s.
///
/// Stopping a server whose threads are still handling a close can abort the process: libmicrohttpd 0.9.75's
/// `MHD_quiesce_daemon` races its epoll workers for the listening socket.
private func settled(_ server: HTTPServer) async -> Bool {
    let clock = ContinuousClock()
    let start = clock.now
    while server.timedConnections > 0 || server.requestsInFlight > 0 {
        if clock.now - start > .seconds(5) { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
}

/// Where a trickling client spends its time: in the request head or in a declared body.
enum TricklePhase: String, Sendable, CustomTestStringConvertible {
    case head
    case body

    var testDescription: String { rawValue }

    /// What the client sends at once before trickling one byte at a time.
    var prefix: String {
        switch self {
        case .head: "POST /v1/verifications HTTP/1.1\r\nHost: x\r\nX-Slow: "
        case .body: "POST /v1/verifications HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\n\r\n"
        }
    }
}

/// Answers every request with 200 `ok`.
private struct Hello: HTTPHandler {
    func handle(_ request: HTTPRequest) -> HTTPReply {
        .now(HTTPResponse(status: 200, body: Array("ok".utf8), route: "/"))
    }
}

/// Blocking socket clients for the limit tests, each run on a thread of its own.
private enum LimitClient {
    /// The most body a streaming client sends before it gives up on an answer.
    static let streamCap = 1 << 20

    /// What a streaming or trickling client saw.
    struct Outcome: Sendable {
        var sent: Int
        var seconds: Double
        var closed: Bool
        var response: RawResponse?
    }

    /// What the per-address client saw.
    struct PerAddressOutcome: Sendable {
        var firstAnswers: [Int]
        var extraClosed: [Bool]
        var againAnswers: [Int]
        var freedSlotAnswer: Int?
    }

    /// Sends `head`, then 4 KiB chunks, looking for an answer after each, until `cap` bytes of body are sent.
    static func streamChunks(port: Int, head: String, upTo cap: Int) async throws -> Outcome {
        try await onThread {
            let socket = try RawHTTP.connect(port: port)
            defer { close(socket) }
            setTimeout(socket, SO_SNDTIMEO, seconds: 2)
            let start = DispatchTime.now()
            guard send(socket, Array(head.utf8)) else { throw RawHTTPError.closedEarly }
            let chunk = Array("1000\r\n\(String(repeating: "a", count: 4096))\r\n".utf8)
            var sent = 0
            while sent < cap, send(socket, chunk) {
                sent += 4096
                if readable(socket, milliseconds: 10) { break }
            }
            setTimeout(socket, SO_RCVTIMEO, seconds: 3)
            let response = try? RawHTTP.readResponse(socket)
            let closed = response != nil && readsEnd(socket)
            return Outcome(sent: sent, seconds: seconds(since: start), closed: closed, response: response)
        }
    }

    /// Sends `GET /` with one header of `headerBytes` bytes of value, and reads the answer. (`/` is
    /// answered on the HTTP thread; `/healthz` asks the store through Swift's pool, which a parallel
    /// run of the suites can keep busy for seconds.)
    static func head(port: Int, headerBytes: Int) async throws -> Outcome {
        try await onThread {
            let socket = try RawHTTP.connect(port: port)
            defer { close(socket) }
            setTimeout(socket, SO_SNDTIMEO, seconds: 2)
            setTimeout(socket, SO_RCVTIMEO, seconds: 5)
            let start = DispatchTime.now()
            let head =
                "GET / HTTP/1.1\r\nHost: x\r\nX-Padding: \(String(repeating: "p", count: headerBytes))"
                + "\r\nConnection: close\r\n\r\n"
            let sent = send(socket, Array(head.utf8))
            let response = try? RawHTTP.readResponse(socket)
            let closed = !sent || readsEnd(socket)
            return Outcome(
                sent: sent ? head.utf8.count : 0, seconds: seconds(since: start), closed: closed,
                response: response)
        }
    }

    /// Sends `prefix`, then one byte every `interval` until the server closes or `limit` has passed.
    static func trickle(
        port: Int, prefix: String, every interval: Duration, giveUpAfter limit: Duration
    ) async throws -> Outcome {
        try await onThread {
            let socket = try RawHTTP.connect(port: port)
            defer { close(socket) }
            setTimeout(socket, SO_SNDTIMEO, seconds: 2)
            setTimeout(socket, SO_RCVTIMEO, seconds: 3)
            let start = DispatchTime.now()
            let wait = Int32(interval / .milliseconds(1))
            var sent = 0
            var closed = !send(socket, Array(prefix.utf8))
            while !closed, seconds(since: start) < limit / .seconds(1) {
                if readable(socket, milliseconds: wait) {
                    closed = readsEnd(socket)
                } else if send(socket, [UInt8(ascii: "a")]) {
                    sent += 1
                } else {
                    closed = true
                }
            }
            return Outcome(sent: sent, seconds: seconds(since: start), closed: closed, response: nil)
        }
    }

    /// Opens `within` connections and has each answer, opens `beyond` more and sees whether the server
    /// closes them, asks the first ones again, then closes one and opens another in its place.
    static func perAddress(port: Int, within: Int, beyond: Int) async throws -> PerAddressOutcome {
        try await onThread {
            var held: [Int32] = []
            defer { held.forEach { close($0) } }
            var first: [Int] = []
            for _ in 0..<within {
                let socket = try RawHTTP.connect(port: port)
                held.append(socket)
                first.append(try get(socket))
            }
            var extraClosed: [Bool] = []
            for _ in 0..<beyond {
                let socket = try RawHTTP.connect(port: port)
                defer { close(socket) }
                setTimeout(socket, SO_RCVTIMEO, seconds: 2)
                extraClosed.append(readsEnd(socket))
            }
            let again = try held.map { try get($0) }
            guard beyond > 0, let last = held.popLast() else {
                return PerAddressOutcome(
                    firstAnswers: first, extraClosed: extraClosed, againAnswers: again, freedSlotAnswer: nil)
            }
            close(last)
            // The server notices the close on its own thread; try a new connection until it has.
            var freed: Int?
            let start = DispatchTime.now()
            while freed == nil, seconds(since: start) < 5 {
                let socket = try RawHTTP.connect(port: port)
                defer { close(socket) }
                freed = try? get(socket)
                if freed == nil { usleep(50_000) }
            }
            return PerAddressOutcome(
                firstAnswers: first, extraClosed: extraClosed, againAnswers: again, freedSlotAnswer: freed)
        }
    }

    /// Sends a keep-alive GET and returns the status.
    private static func get(_ socket: Int32) throws -> Int {
        setTimeout(socket, SO_RCVTIMEO, seconds: 5)
        guard send(socket, Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)) else {
            throw RawHTTPError.closedEarly
        }
        return try RawHTTP.readResponse(socket).status
    }

    /// Writes all of `bytes`; false when the peer has closed (no SIGPIPE) or the write timed out.
    private static func send(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// Whether the server has sent something, or closed, within `milliseconds`.
    private static func readable(_ socket: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Reads until the server closes (true) or the read times out (false).
    private static func readsEnd(_ socket: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(socket, &buffer, buffer.count)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    private static func setTimeout(_ socket: Int32, _ option: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            // Blocking reads must not hold threads Swift's tasks need.
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
