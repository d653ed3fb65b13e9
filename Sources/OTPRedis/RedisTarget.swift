import CHiredis
import OTPEngine

/// A Redis server's or a sentinel's address.
public struct RedisAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host name or IP address.
    public var host: String
    /// The TCP port.
    public var port: Int

    /// Creates an address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `HOST:PORT`, brackets around an IPv6 literal.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Where a connection finds the server it talks to.
enum RedisTarget: Sendable {
    /// One server at a fixed address.
    case server(RedisAddress)
    /// The primary the sentinels name, asked again at each new connection.
    case sentinel(sentinels: [RedisAddress], primary: String)
}

extension RedisConnection {
    /// The most a sentinel may take to answer, so one that is down leaves time to ask the next.
    static let sentinelTimeoutMilliseconds = 500

    /// The address to connect to: the fixed one, or the primary the first sentinel that answers names
    /// (`SENTINEL get-master-addr-by-name`), each sentinel asked in turn.
    func locate() throws(StoreError) -> RedisAddress {
        switch target {
        case .server(let address):
            return address
        case .sentinel(let sentinels, let primary):
            var reasons: [String] = []
            for sentinel in sentinels {
                do throws(StoreError) {
                    let timeout = min(try remainingMilliseconds(), Self.sentinelTimeoutMilliseconds)
                    return try Self.ask(sentinel, forPrimary: primary, timeout: timeout)
                } catch {
                    let reason =
                        error.reason.hasPrefix("redis: ") ? String(error.reason.dropFirst(7)) : error.reason
                    reasons.append("\(sentinel): \(reason)")
                }
            }
            throw StoreError(
                "redis: no sentinel named the primary \(primary) (\(reasons.joined(separator: "; ")))")
        }
    }

    /// Asks one sentinel for the primary's address.
    static func ask(
        _ sentinel: RedisAddress, forPrimary primary: String, timeout: Int
    ) throws(StoreError) -> RedisAddress {
        let context = try open(sentinel, timeout: timeout)
        defer { redisFree(context) }
        _ = otp_redis_set_timeout(context, timeout)
        var command = RedisArguments(capacity: 3)
        for argument in ["SENTINEL", "get-master-addr-by-name", primary] { command.append(argument) }
        let appended = command.withCommand(after: nil) { bytes, count in
            otp_redis_append_formatted(context, bytes, count)
        }
        guard appended == REDIS_OK, let reply = otp_redis_next_reply(context) else {
            throw StoreError(String(cString: otp_redis_error_text(context)))
        }
        let value = decode(reply)
        freeReplyObject(reply)
        switch value {
        case .array(let parts):
            guard parts.count == 2, let host = parts[0].text, let port = parts[1].text.flatMap({ Int($0) }),
                !host.isEmpty
            else { throw StoreError("unexpected reply") }
            return RedisAddress(host: host, port: port)
        case .null:
            throw StoreError("it monitors no primary named \(primary)")
        case .error(let text):
            throw StoreError(text)
        default:
            throw StoreError("unexpected reply")
        }
    }

    /// Opens a TCP connection to an address, or throws what hiredis says went wrong.
    static func open(
        _ address: RedisAddress, timeout: Int
    ) throws(StoreError) -> UnsafeMutablePointer<redisContext> {
        guard let opened = otp_redis_connect(address.host, Int32(address.port), timeout) else {
            throw StoreError("redis: could not allocate a connection")
        }
        guard otp_redis_error(opened) == 0 else {
            let reason = String(cString: otp_redis_error_text(opened))
            redisFree(opened)
            throw StoreError("redis: \(reason)")
        }
        return opened
    }
}
