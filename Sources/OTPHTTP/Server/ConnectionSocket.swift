import CMicroHTTPD
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The few things the server does to a connection's socket behind libmicrohttpd's back: find it, write a
/// last answer on it, cut it off.
///
/// libmicrohttpd cannot queue a response while a body is still arriving, and has no total time limit for
/// a request; both need the socket itself.
enum ConnectionSocket {
    /// The socket of a connection, or `nil` when libmicrohttpd does not tell it.
    static func descriptor(of connection: OpaquePointer) -> Int32? {
        let socket = otp_mhd_connection_fd(connection)
        return socket >= 0 ? socket : nil
    }

    /// Writes `response` as the connection's last answer (with `Connection: close`) and shuts the socket's
    /// write side; returns whether all of it went out.
    ///
    /// Only for a connection whose previous answer is sent and whose next is not queued, so nothing else
    /// writes to the socket. The socket is non-blocking: an answer that does not fit the send buffer at
    /// once is cut short.
    static func sendLast(_ response: HTTPResponse, on socket: Int32) -> Bool {
        let bytes = wireBytes(of: response)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { break }
            offset += written
        }
        shutdown(socket, Int32(SHUT_WR))
        return offset == bytes.count
    }

    /// Shuts down both directions of a socket; libmicrohttpd then sees the connection end and closes it
    /// on its own thread.
    static func cut(_ socket: Int32) {
        shutdown(socket, Int32(SHUT_RDWR))
    }

    /// The response as HTTP/1.1 bytes, closing the connection.
    static func wireBytes(of response: HTTPResponse) -> [UInt8] {
        let reason = MHD_get_reason_phrase_for(UInt32(response.status)).map { String(cString: $0) } ?? ""
        var head = "HTTP/1.1 \(response.status) \(reason)\r\nDate: \(httpDate(time(nil)))\r\n"
        for header in response.headers
        where !["content-length", "connection", "date"].contains(header.name.lowercased()) {
            head += "\(header.name): \(header.value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + response.body
    }

    /// An HTTP date (IMF-fixdate), such as `Sun, 06 Nov 1994 08:49:37 GMT`, whatever the process's locale.
    static func httpDate(_ seconds: time_t) -> String {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
