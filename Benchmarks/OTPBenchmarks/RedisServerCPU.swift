import CHiredis
import Foundation

/// What `redis-server` spends per call, from its own account of its CPU time (`INFO cpu`).
///
/// Redis shares the benchmark's cores, so the CPU it spends per check is as much a part of a check's
/// cost as the server's own. This measures it for the engine's check beside three calls made in
/// pipelines of 16 on one connection, as the store's connection sends them: a plain `HINCRBY`, a
/// script doing nothing (`return 1`), and a script doing one `HINCRBY`. What a script costs before
/// it does anything is the floor under any check that Redis judges in one atomic step.
final class RedisServerCPU: @unchecked Sendable {
    // Used by one measure at a time.
    private let context: UnsafeMutablePointer<redisContext>
    private let key: String

    /// The calls measured in pipelines, by name, with their arguments.
    private(set) var calls: [(name: String, arguments: [String])] = []

    init(port: Int, key: String) throws {
        guard let context = otp_redis_connect("127.0.0.1", Int32(port), 2000), otp_redis_error(context) == 0
        else {
            throw LoadError("could not connect to Redis on port \(port)")
        }
        self.context = context
        self.key = key
        let nothing = try load("return 1")
        let one = try load("return redis.call('HINCRBY', KEYS[1], 'n', -1)")
        calls = [
            ("HINCRBY", ["HINCRBY", key, "n", "-1"]),
            ("script: return 1", ["EVALSHA", nothing, "1", key]),
            ("script: one HINCRBY", ["EVALSHA", one, "1", key]),
        ]
    }

    deinit { redisFree(context) }

    /// `redis-server`'s user and system CPU so far, in seconds.
    func serverSeconds() throws -> Double {
        let text = try reply(to: ["INFO", "cpu"])
        var total = 0.0
        var found = 0
        for line in text.split(whereSeparator: \.isNewline) {
            for field in ["used_cpu_sys:", "used_cpu_user:"] where line.hasPrefix(field) {
                guard let seconds = Double(line.dropFirst(field.count)) else {
                    throw LoadError("INFO cpu: \(line) is not a number of seconds")
                }
                total += seconds
                found += 1
            }
        }
        guard found == 2 else { throw LoadError("INFO cpu has no used_cpu_sys and used_cpu_user") }
        return total
    }

    /// Microseconds of `redis-server` CPU per call of `arguments`, sent `count` times in pipelines of 16.
    func microsecondsPerCall(_ arguments: [String], count: Int) throws -> Double {
        let command = Self.protocolForm(arguments)
        let before = try serverSeconds()
        var sent = 0
        while sent < count {
            let batch = min(16, count - sent)
            for _ in 0..<batch {
                let appended = command.withUnsafeBufferPointer { bytes in
                    bytes.withMemoryRebound(to: CChar.self) {
                        otp_redis_append_formatted(context, $0.baseAddress, $0.count)
                    }
                }
                guard appended == REDIS_OK else { throw LoadError("could not queue \(arguments[0])") }
            }
            for _ in 0..<batch {
                guard let reply = otp_redis_next_reply(context) else {
                    throw LoadError("no reply to \(arguments[0])")
                }
                defer { freeReplyObject(reply) }
                guard reply.pointee.type != REDIS_REPLY_ERROR else {
                    throw LoadError("\(arguments[0]) failed: \(Self.text(of: reply))")
                }
            }
            sent += batch
        }
        return (try serverSeconds() - before) * 1e6 / Double(count)
    }

    /// The command in Redis's protocol: an array of bulk strings.
    static func protocolForm(_ arguments: [String]) -> [UInt8] {
        var bytes = Array("*\(arguments.count)\r\n".utf8)
        for argument in arguments {
            bytes += Array("$\(argument.utf8.count)\r\n".utf8) + Array(argument.utf8) + [13, 10]
        }
        return bytes
    }

    private func load(_ script: String) throws -> String {
        try reply(to: ["SCRIPT", "LOAD", script])
    }

    /// Sends one command and answers its reply as text; an error reply throws.
    private func reply(to arguments: [String]) throws -> String {
        let command = Self.protocolForm(arguments)
        let appended = command.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                otp_redis_append_formatted(context, $0.baseAddress, $0.count)
            }
        }
        guard appended == REDIS_OK, let reply = otp_redis_next_reply(context) else {
            throw LoadError("no reply to \(arguments[0])")
        }
        defer { freeReplyObject(reply) }
        guard reply.pointee.type != REDIS_REPLY_ERROR else {
            throw LoadError("\(arguments[0]) failed: \(Self.text(of: reply))")
        }
        return Self.text(of: reply)
    }

    private static func text(of reply: UnsafeMutablePointer<redisReply>) -> String {
        guard let bytes = reply.pointee.str else { return "" }
        return String(
            decoding: UnsafeRawBufferPointer(start: bytes, count: reply.pointee.len), as: UTF8.self)
    }
}
