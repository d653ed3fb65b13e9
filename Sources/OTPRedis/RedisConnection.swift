import CHiredis
import OTPCore
import OTPEngine

#if canImport(Glibc)
    import Glibc
#endif

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

/// A Lua script that connections know by identity.
///
/// A connection keeps each script's hash under the script object, not under its text: looking a
/// hash up then never hashes the text. Scripts are made once, as `static let`s.
final class RedisScript: Sendable {
    // The check's script is about 5 KB; hashing its text twice per call was a tenth of the server's
    // work on a Redis check.
    /// The script's Lua source.
    let text: String

    init(_ text: String) {
        self.text = text
    }
}

/// One connection to Redis, reconnecting after an I/O error.
///
/// Not thread-safe by itself (a `redisContext` is not): ``RedisStore`` owns each connection
/// and uses it from that connection's serial queue only.
final class RedisConnection: @unchecked Sendable {
    let target: RedisTarget
    private let database: Int
    /// The replicas each script's writes must reach (`WAIT`) before the call succeeds; 0: none.
    private let waitReplicas: Int
    private let username: String?
    private let password: String?
    private var context: UnsafeMutablePointer<redisContext>?
    /// The hash of each script loaded on this connection, by the script's identity (internal so a
    /// test can make Redis appear to have forgotten one, as `SCRIPT FLUSH` or a restart does,
    /// without flushing a server other tests share).
    var scriptHashes: [ObjectIdentifier: LoadedScript] = [:]

    /// A script loaded on this connection and its hash; holding the script keeps its identity from
    /// being reused by another object while the hash is kept.
    struct LoadedScript {
        let script: RedisScript
        let hash: [UInt8]
    }

    /// How long connecting and each command may take.
    static let timeoutMilliseconds = 2000

    /// When the call now running must be done, set by ``RedisStore`` on the connection's queue.
    ///
    /// The time a call spends waiting for this connection counts against the same 2 s, so a
    /// request never waits out several timeouts in turn.
    var deadline: ContinuousClock.Instant?
    private var appliedTimeout = 0

    convenience init(
        host: String, port: Int, database: Int, username: String? = nil, password: String? = nil
    )
        throws(StoreError)
    {
        try self.init(
            target: .server(RedisAddress(host: host, port: port)), database: database, username: username,
            password: password)
    }

    init(
        target: RedisTarget, database: Int, username: String? = nil, password: String? = nil,
        waitReplicas: Int = 0
    )
        throws(StoreError)
    {
        self.target = target
        self.database = database
        self.waitReplicas = waitReplicas
        self.username = username
        self.password = password
        try connect()
    }

    private var isClosed = false

    deinit {
        if let context { redisFree(context) }
    }

    /// Puts the connection's socket out of reach of Redis, as a lost connection would be.
    ///
    /// For the tests of a connection lost under a pipeline: writes still go somewhere, but the only
    /// answer is the end of the stream. Returns the descriptor that stands for Redis, which the
    /// caller closes.
    func loseConnection() -> Int32? {
        guard let context else { return nil }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { return nil }
        dup2(pair[0], context.pointee.fd)
        Glibc.close(pair[0])
        shutdown(pair[1], Int32(SHUT_WR))
        return pair[1]
    }

    /// Closes the connection for good: later commands throw instead of reconnecting.
    func close() {
        isClosed = true
        if let context { redisFree(context) }
        context = nil
    }

    /// Sends one command and returns its reply; a Redis error reply is returned, not thrown.
    func command(_ arguments: [[UInt8]]) throws(StoreError) -> RedisValue {
        var command = RedisArguments(capacity: arguments.count)
        for argument in arguments { command.append(argument) }
        return try run(command)
    }

    /// Sends one command laid out in the protocol's form (`head`'s arguments, then `command`'s) and
    /// returns its reply.
    private func run(
        _ command: RedisArguments, after head: RedisArguments? = nil
    ) throws(StoreError) -> RedisValue {
        guard !isClosed else { throw StoreError("redis: the store is shut down") }
        if context == nil { try connect() }
        guard let context else { throw StoreError("redis: not connected") }
        try applyTimeout(to: context)
        let appended = command.withCommand(after: head) { bytes, count in
            otp_redis_append_formatted(context, bytes, count)
        }
        guard appended == REDIS_OK else { throw StoreError("redis: could not buffer a command") }
        let reply = otp_redis_next_reply(context)
        guard let reply else {
            let reason = String(cString: otp_redis_error_text(context))
            redisFree(context)
            self.context = nil
            throw StoreError("redis: \(reason)")
        }
        defer { freeReplyObject(reply) }
        let value = Self.decode(reply)
        if Self.isReadOnly(value) {
            // A replica now: the next call asks where the primary is and connects again.
            drop()
            throw Self.failure(value)
        }
        return value
    }

    /// Whether a reply says Redis does not know the script (`NOSCRIPT`: flushed, or restarted).
    static func isForgotten(_ value: RedisValue) -> Bool {
        guard case .error(let message) = value else { return false }
        return message.hasPrefix("NOSCRIPT")
    }

    /// Whether a reply says the server is a replica that refuses writes (after a failover).
    static func isReadOnly(_ value: RedisValue) -> Bool {
        guard case .error(let message) = value else { return false }
        return message.hasPrefix("READONLY") || message.contains("-READONLY")
    }

    private static func failure(_ value: RedisValue) -> StoreError {
        if case .error(let message) = value { return StoreError("redis: \(message)") }
        return StoreError("redis: unexpected reply")
    }

    /// Frees the connection; the next call connects again.
    private func drop() {
        if let context { redisFree(context) }
        context = nil
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
    func evaluate(
        _ script: RedisScript, keys: [String], arguments: [[UInt8]]
    ) throws(StoreError) -> RedisValue {
        try evaluate(Evaluation(script: script, keys: keys, arguments: arguments))
    }

    /// Runs a script run by its script's hash, loading the script first when Redis does not know it.
    func evaluate(_ evaluation: Evaluation) throws(StoreError) -> RedisValue {
        if let hash = scriptHashes[ObjectIdentifier(evaluation.script)]?.hash {
            let reply = try run(evaluation.tail, after: Self.evalsha(hash))
            if !Self.isForgotten(reply) {
                try awaitReplicas()
                return reply
            }
        }
        let hash = try load(evaluation.script)
        let reply = try run(evaluation.tail, after: Self.evalsha(hash))
        try awaitReplicas()
        return reply
    }

    /// Waits until `waitReplicas` replicas hold every write this connection made (`WAIT`); throws
    /// when fewer acknowledge them before the call's deadline.
    ///
    /// Without it, a write the primary acknowledged but had not yet sent to a replica is lost when a
    /// failover promotes that replica.
    private func awaitReplicas() throws(StoreError) {
        guard waitReplicas > 0 else { return }
        let left = try remainingMilliseconds()
        // WAIT must answer before the socket's timeout does.
        let reply = try command("WAIT", String(waitReplicas), String(max(1, left - 200)))
        guard case .integer(let acknowledged) = reply else { throw Self.failure(reply) }
        guard acknowledged >= waitReplicas else {
            throw StoreError(
                "redis: \(acknowledged) of \(waitReplicas) replicas acknowledged the write in time (WAIT)")
        }
    }

    /// Loads a script and keeps its hash.
    private func load(_ script: RedisScript) throws(StoreError) -> [UInt8] {
        guard case .string(let hash) = try command("SCRIPT", "LOAD", script.text) else {
            throw StoreError("redis: SCRIPT LOAD failed")
        }
        scriptHashes[ObjectIdentifier(script)] = LoadedScript(script: script, hash: hash)
        return hash
    }

    /// The start of an `EVALSHA` command, its name and the script's hash; the run's tail follows it
    /// (``RedisArguments/withCommand(after:_:)``).
    private static func evalsha(_ hash: [UInt8]) -> RedisArguments {
        var head = RedisArguments(capacity: 2, bytes: 64)
        head.append("EVALSHA")
        head.append(hash)
        return head
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
    func remainingMilliseconds() throws(StoreError) -> Int {
        guard let deadline else { return Self.timeoutMilliseconds }
        let left = ContinuousClock.now.duration(to: deadline).components
        let milliseconds = Int(left.seconds) * 1000 + Int(left.attoseconds / 1_000_000_000_000_000)
        guard milliseconds > 0 else { throw StoreError("redis: timed out") }
        return min(milliseconds, Self.timeoutMilliseconds)
    }

    private func connect() throws(StoreError) {
        let address = try locate()
        let opened = try Self.open(address, timeout: try remainingMilliseconds())
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
            // A server that needs a password answers every command with NOAUTH, so a connection
            // made without one is refused here, at open, not at the first request.
            let pong = try command("PING")
            guard pong == .status("PONG") else {
                guard case .error(let text) = pong else { throw StoreError("redis: PING: unexpected reply") }
                if text.hasPrefix("NOAUTH") {
                    throw StoreError("redis: the server requires a password (\(text))")
                }
                throw StoreError("redis: PING was refused (\(text))")
            }
        } catch {
            if let context {
                redisFree(context)
                self.context = nil
            }
            throw error
        }
    }

    /// One script run: the script, and `numkeys`, the keys and the arguments laid out once.
    struct Evaluation: Sendable {
        let script: RedisScript
        let tail: RedisArguments

        init(script: RedisScript, keys: [String], arguments: [[UInt8]]) {
            var tail = RedisArguments(capacity: 1 + keys.count + arguments.count)
            tail.append(Int64(keys.count))
            for key in keys { tail.append(key) }
            for argument in arguments { tail.append(argument) }
            self.init(script: script, tail: tail)
        }

        /// A run whose tail is already laid out: `numkeys`, then the keys, then the arguments.
        init(script: RedisScript, tail: RedisArguments) {
            self.script = script
            self.tail = tail
        }
    }

    /// Runs scripts as one pipeline: every `EVALSHA` written at once, then the replies read in order.
    ///
    /// Answers one result per evaluation, in order. An I/O error fails the evaluation whose reply
    /// was lost and every later one (the connection is dropped and made again by the next call);
    /// a script Redis has forgotten is loaded and run again on its own.
    func evaluateAll(_ evaluations: [Evaluation]) -> [Result<RedisValue, StoreError>] {
        guard evaluations.count > 1 else {
            return evaluations.map { evaluation in
                Result { () throws(StoreError) in try evaluate(evaluation) }
            }
        }
        let context: UnsafeMutablePointer<redisContext>
        do throws(StoreError) {
            guard !isClosed else { throw StoreError("redis: the store is shut down") }
            if self.context == nil { try connect() }
            for evaluation in evaluations where scriptHashes[ObjectIdentifier(evaluation.script)] == nil {
                _ = try load(evaluation.script)
            }
            guard let opened = self.context else { throw StoreError("redis: not connected") }
            try applyTimeout(to: opened)
            context = opened
        } catch {
            return evaluations.map { _ in .failure(error) }
        }
        for evaluation in evaluations {
            let hash = scriptHashes[ObjectIdentifier(evaluation.script)]?.hash ?? []
            let appended = evaluation.tail.withCommand(after: Self.evalsha(hash)) { bytes, count in
                otp_redis_append_formatted(context, bytes, count)
            }
            guard appended == REDIS_OK else {
                return evaluations.map { _ in .failure(StoreError("redis: could not buffer a command")) }
            }
        }
        var results: [Result<RedisValue, StoreError>] = []
        results.reserveCapacity(evaluations.count)
        var forgotten: [Int] = []
        for index in evaluations.indices {
            guard let reply = otp_redis_next_reply(context) else {
                let error = StoreError("redis: \(String(cString: otp_redis_error_text(context)))")
                redisFree(context)
                self.context = nil
                while results.count < evaluations.count { results.append(.failure(error)) }
                return results
            }
            let value = Self.decode(reply)
            freeReplyObject(reply)
            if Self.isForgotten(value) { forgotten.append(index) }
            results.append(.success(value))
        }
        if results.contains(where: {
            if case .success(let value) = $0 { Self.isReadOnly(value) } else { false }
        }) {
            // A replica now: every script was refused; the next call finds the primary again.
            drop()
            return results.map { result in
                result.flatMap { value in
                    Self.isReadOnly(value) ? .failure(Self.failure(value)) : .success(value)
                }
            }
        }
        // Only once every pipelined reply is read may a command of its own go out.
        for index in forgotten {
            let evaluation = evaluations[index]
            results[index] = Result { () throws(StoreError) in try evaluate(evaluation) }
        }
        do throws(StoreError) {
            try awaitReplicas()
        } catch {
            return results.map { $0.flatMap { _ in .failure(error) } }
        }
        return results
    }

    static func decode(_ reply: UnsafeMutablePointer<redisReply>) -> RedisValue {
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

/// Arguments laid out as the Redis protocol's bulk strings (`$LENGTH\r\nBYTES\r\n`), counted, so a
/// command goes to hiredis already formatted: no array per argument and no second layout.
struct RedisArguments: Sendable {
    private var bytes: [UInt8] = []
    /// How many arguments are laid out.
    private(set) var count = 0

    init(capacity: Int, bytes byteCapacity: Int = 0) {
        bytes.reserveCapacity(byteCapacity > 0 ? byteCapacity : capacity * 32)
    }

    mutating func append(_ argument: [UInt8]) {
        appendHeader(argument.count)
        bytes.append(contentsOf: argument)
        bytes.append(contentsOf: [0x0D, 0x0A])
        count += 1
    }

    mutating func append(_ argument: String) {
        var argument = argument
        appendHeader(argument.utf8.count)
        argument.withUTF8 { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [0x0D, 0x0A])
        count += 1
    }

    /// One argument made of several texts in a row (a key's prefix, its kind, its id), not joined first.
    mutating func appendJoined(_ parts: String...) {
        var length = 0
        for part in parts { length += part.utf8.count }
        appendHeader(length)
        for var part in parts { part.withUTF8 { bytes.append(contentsOf: $0) } }
        bytes.append(contentsOf: [0x0D, 0x0A])
        count += 1
    }

    /// A number as its decimal digits.
    mutating func append(_ number: Int64) {
        appendHeader(Self.decimalLength(number))
        appendDecimal(number)
        bytes.append(contentsOf: [0x0D, 0x0A])
        count += 1
    }

    private mutating func appendHeader(_ length: Int) {
        bytes.append(UInt8(ascii: "$"))
        appendDecimal(Int64(length))
        bytes.append(contentsOf: [0x0D, 0x0A])
    }

    /// Writes a number's decimal digits, with no string in between.
    private mutating func appendDecimal(_ number: Int64) {
        WireJSON.number(Int(number), into: &bytes)
    }

    /// How many characters a number's decimal form takes, its sign included.
    private static func decimalLength(_ number: Int64) -> Int {
        var length = number < 0 ? 2 : 1
        var magnitude = number.magnitude
        while magnitude >= 10 {
            magnitude /= 10
            length += 1
        }
        return length
    }

    /// Calls `body` with the whole command as C bytes and their length: `*COUNT\r\n`, then `head`'s
    /// arguments and these, copied once into one buffer.
    func withCommand<Result>(
        after head: RedisArguments? = nil, _ body: (UnsafePointer<CChar>, Int) -> Result
    ) -> Result {
        var command = RedisArguments(capacity: 0, bytes: (head?.bytes.count ?? 0) + bytes.count + 16)
        command.bytes.append(UInt8(ascii: "*"))
        command.appendDecimal(Int64((head?.count ?? 0) + count))
        command.bytes.append(contentsOf: [0x0D, 0x0A])
        if let head { command.bytes.append(contentsOf: head.bytes) }
        command.bytes.append(contentsOf: bytes)
        return command.bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                guard let base = characters.baseAddress else { preconditionFailure("a command has a header") }
                return body(base, characters.count)
            }
        }
    }
}
