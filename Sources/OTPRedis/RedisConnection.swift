import CHiredis
import OTPServer

/// A Redis reply, decoded.
enum RedisValue: Equatable {
    case string([UInt8])
    case integer(Int64)
    case array([RedisValue])
    case null
    case status(String)
    case error(String)

    /// The value as text, for strings and statuses.
    var text: String? {
        switch self {
        case .string(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .status(let text): return text
        default: return nil
        }
    }
}

/// One connection to Redis, reconnecting after an I/O error.
///
/// Not thread-safe by itself (a `redisContext` is not): ``RedisStore`` owns each connection
/// and uses it from that connection's serial queue only.
final class RedisConnection: @unchecked Sendable {
    private let host: String
    private let port: Int
    private let database: Int
    private let username: String?
    private let password: String?
    private var context: UnsafeMutablePointer<redisContext>?
    private var scriptHashes: [String: String] = [:]

    /// How long connecting and each command may take.
    static let timeoutMilliseconds = 2000

    /// When the call now running must be done, set by ``RedisStore`` on the connection's queue.
    ///
    /// The time a call spends waiting for this connection counts against the same 2 s, so a
    /// request never waits out several timeouts in turn.
    var deadline: ContinuousClock.Instant?
    private var appliedTimeout = 0

    init(
        host: String, port: Int, database: Int, username: String? = nil, password: String? = nil
    )
        throws(StoreError)
    {
        self.host = host
        self.port = port
        self.database = database
        self.username = username
        self.password = password
        try connect()
    }

    private var isClosed = false

    deinit {
        if let context { redisFree(context) }
    }

    /// Closes the connection for good: later commands throw instead of reconnecting.
    func close() {
        isClosed = true
        if let context { redisFree(context) }
        context = nil
    }

    /// Sends one command and returns its reply; a Redis error reply is returned, not thrown.
    func command(_ arguments: [[UInt8]]) throws(StoreError) -> RedisValue {
        guard !isClosed else { throw StoreError("redis: the store is shut down") }
        if context == nil { try connect() }
        guard let context else { throw StoreError("redis: not connected") }
        try applyTimeout(to: context)
        let reply = Self.send(arguments, on: context)
        guard let reply else {
            let reason = String(cString: otp_redis_error_text(context))
            redisFree(context)
            self.context = nil
            throw StoreError("redis: \(reason)")
        }
        defer { freeReplyObject(reply) }
        return Self.decode(reply)
    }

    /// Sends a command given as text.
    func command(_ arguments: String...) throws(StoreError) -> RedisValue {
        try command(arguments.map { Array($0.utf8) })
    }

    /// Sends a command given as a list of texts.
    func command(_ arguments: [String]) throws(StoreError) -> RedisValue {
        try command(arguments.map { Array($0.utf8) })
    }

    /// Runs a Lua script by its hash, loading it first when Redis does not know it.
    func evaluate(_ script: String, keys: [String], arguments: [[UInt8]]) throws(StoreError) -> RedisValue {
        let tail = keys.map { Array($0.utf8) } + arguments
        if let hash = scriptHashes[script] {
            let reply = try command(
                [Array("EVALSHA".utf8), Array(hash.utf8), Array(String(keys.count).utf8)] + tail)
            guard case .error(let message) = reply, message.hasPrefix("NOSCRIPT") else { return reply }
        }
        guard case .string(let hashBytes) = try command("SCRIPT", "LOAD", script) else {
            throw StoreError("redis: SCRIPT LOAD failed")
        }
        let hash = String(decoding: hashBytes, as: UTF8.self)
        scriptHashes[script] = hash
        return try command([Array("EVALSHA".utf8), hashBytes, Array(String(keys.count).utf8)] + tail)
    }

    /// Shortens the socket timeout when the call has waited for the connection (setting it costs two
    /// system calls, so a call that did not wait keeps the full timeout set at connection).
    private func applyTimeout(to context: UnsafeMutablePointer<redisContext>) throws(StoreError) {
        let left = try remainingMilliseconds()
        let wanted = left < Self.timeoutMilliseconds - 100 ? left : Self.timeoutMilliseconds
        if wanted != appliedTimeout {
            _ = otp_redis_set_timeout(context, wanted)
            appliedTimeout = wanted
        }
    }

    /// The time left before the deadline, at most the timeout; throws when none is left.
    private func remainingMilliseconds() throws(StoreError) -> Int {
        guard let deadline else { return Self.timeoutMilliseconds }
        let left = ContinuousClock.now.duration(to: deadline).components
        let milliseconds = Int(left.seconds) * 1000 + Int(left.attoseconds / 1_000_000_000_000_000)
        guard milliseconds > 0 else { throw StoreError("redis: timed out") }
        return min(milliseconds, Self.timeoutMilliseconds)
    }

    private func connect() throws(StoreError) {
        guard let opened = otp_redis_connect(host, Int32(port), try remainingMilliseconds()) else {
            throw StoreError("redis: could not allocate a connection")
        }
        guard otp_redis_error(opened) == 0 else {
            let reason = String(cString: otp_redis_error_text(opened))
            redisFree(opened)
            throw StoreError("redis: \(reason)")
        }
        _ = otp_redis_set_timeout(opened, Self.timeoutMilliseconds)
        appliedTimeout = Self.timeoutMilliseconds
        context = opened
        scriptHashes = [:]
        do throws(StoreError) {
            // AUTH, then SELECT, before any other command: a connection that fails either is closed,
            // never left open as the default user or on database 0.
            if let password {
                let reply = try command(username.map { ["AUTH", $0, password] } ?? ["AUTH", password])
                guard reply == .status("OK") else {
                    let reason = if case .error(let text) = reply { text } else { "unexpected reply" }
                    throw StoreError("redis: AUTH was refused (\(reason))")
                }
            }
            if database != 0 {
                let reply = try command("SELECT", String(database))
                guard reply == .status("OK") else {
                    throw StoreError("redis: could not select database \(database)")
                }
            }
        } catch {
            if let context {
                redisFree(context)
                self.context = nil
            }
            throw error
        }
    }

    private static func send(
        _ arguments: [[UInt8]], on context: UnsafeMutablePointer<redisContext>
    )
        -> UnsafeMutablePointer<redisReply>?
    {
        var pointers: [UnsafePointer<CChar>?] = []
        var lengths: [Int] = []
        var storage: [UnsafeMutableBufferPointer<CChar>] = []
        defer { storage.forEach { $0.deallocate() } }
        for argument in arguments {
            let buffer = UnsafeMutableBufferPointer<CChar>.allocate(capacity: max(1, argument.count))
            argument.withUnsafeBytes { bytes in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: bytes)
            }
            storage.append(buffer)
            pointers.append(UnsafePointer(buffer.baseAddress))
            lengths.append(argument.count)
        }
        return pointers.withUnsafeMutableBufferPointer { pointerBuffer in
            lengths.withUnsafeBufferPointer { lengthBuffer in
                otp_redis_command(
                    context, Int32(arguments.count), pointerBuffer.baseAddress, lengthBuffer.baseAddress)
            }
        }
    }

    private static func decode(_ reply: UnsafeMutablePointer<redisReply>) -> RedisValue {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            return .string(bytes(value.str, value.len))
        case REDIS_REPLY_STATUS:
            return .status(String(decoding: bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            return .error(String(decoding: bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER:
            return .integer(value.integer)
        case REDIS_REPLY_ARRAY:
            guard let elements = value.element else { return .array([]) }
            return .array((0..<value.elements).map { index in elements[index].map(decode) ?? .null })
        default:
            return .null
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
            Array(UnsafeBufferPointer(start: $0, count: count))
        }
    }
}
