import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A response as read off the socket.
struct RawResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object.
    var json: [String: any Sendable] {
        (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: any Sendable]) ?? [:]
    }

    /// The `error.code` of an error body.
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }

    /// A field of the `error` object.
    func errorField(_ name: String) -> Any? { (json["error"] as? [String: Any])?[name] }
}

enum RawHTTPError: Error {
    case connect(Int32)
    case closedEarly
    case malformed(String)
}

/// A minimal HTTP/1.1 client over a blocking socket, run off Swift's cooperative pool.
///
/// It can send anything (bad methods, huge or chunked bodies, half a request) and reads exactly one
/// response, so tests see what the server really answers.
enum RawHTTP {
    /// Sends `method path` with headers and an optional body; adds Host, Content-Length, Connection: close.
    static func request(
        port: Int, method: String, path: String, headers: [(String, String)] = [], body: String? = nil
    ) async throws -> RawResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.utf8.count)\r\n" }
        head += "\r\n"
        return try await send(port: port, Array((head + (body ?? "")).utf8))
    }

    /// Sends raw bytes and reads one response.
    static func send(port: Int, _ bytes: [UInt8]) async throws -> RawResponse {
        try await offPool {
            let socket = try connect(port: port)
            defer { close(socket) }
            try writeAll(socket, bytes)
            return try readResponse(socket)
        }
    }

    /// Opens a connection, sends `bytes`, then waits for the server to close it; returns the seconds taken
    /// and whatever it sent.
    static func sendAndWaitForClose(
        port: Int, _ bytes: [UInt8]
    ) async throws -> (seconds: Double, received: [UInt8]) {
        try await offPool {
            let socket = try connect(port: port)
            defer { close(socket) }
            try writeAll(socket, bytes)
            let start = DispatchTime.now()
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(socket, &buffer, buffer.count)
                if count <= 0 { break }
                received += buffer[0..<count]
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            return (seconds, received)
        }
    }

    private static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            // A thread of its own: blocked reads must not hold threads Swift's tasks need.
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw RawHTTPError.connect(code)
        }
        return fd
    }

    static func writeAll(_ socket: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
            if written <= 0 { return }  // the server may close early (413); read what it said
            offset += written
        }
    }

    static func readResponse(_ socket: Int32) throws -> RawResponse {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        var headEnd: Int?
        var expected: Int?
        var parsed: (Int, [String: String])?
        while true {
            if headEnd == nil, let end = findHeadEnd(data) {
                headEnd = end
                parsed = try parseHead(Array(data[0..<end]))
                expected = parsed?.1["content-length"].flatMap(Int.init)
            }
            if let headEnd, let expected, data.count >= headEnd + 4 + expected { break }
            let count = read(socket, &buffer, buffer.count)
            if count <= 0 { break }
            data += buffer[0..<count]
        }
        guard let headEnd, let (status, headers) = parsed else { throw RawHTTPError.closedEarly }
        var body = Array(data[(headEnd + 4)...])
        if let expected, body.count > expected { body = Array(body[0..<expected]) }
        return RawResponse(status: status, headers: headers, body: body)
    }

    private static func findHeadEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        for index in 0...(data.count - 4)
        where data[index] == 13 && data[index + 1] == 10 && data[index + 2] == 13 && data[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func parseHead(_ head: [UInt8]) throws -> (Int, [String: String]) {
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw RawHTTPError.malformed(lines[0]) }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        return (status, headers)
    }
}
