import CHiredis
import CSQLite
import Foundation

/// One store's own atomic read-modify-write of a counter, as fast as its API allows: the baseline.
protocol RawReadModifyWrite: Sendable {
    /// Reads a counter, decrements it and writes it back, atomically.
    func step() async throws
}

/// An actor holding a dictionary: the same isolation hop the memory store pays.
actor MemoryRaw: RawReadModifyWrite {
    private var counters: [String: Int] = ["counter": Int.max]

    func step() {
        counters["counter", default: 0] -= 1
    }
}

/// `BEGIN IMMEDIATE; SELECT; UPDATE; COMMIT` with prepared statements on one connection, on the caller's thread.
final class SQLiteRaw: RawReadModifyWrite, @unchecked Sendable {
    // Used by one benchmark loop at a time.
    private let handle: OpaquePointer
    private let begin: OpaquePointer
    private let select: OpaquePointer
    private let update: OpaquePointer
    private let commit: OpaquePointer

    init(path: String, full: Bool) throws {
        var opened: OpaquePointer?
        guard
            sqlite3_open_v2(
                path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
                == SQLITE_OK, let opened
        else { throw LoadError("could not open \(path)") }
        handle = opened
        sqlite3_busy_timeout(handle, 5000)
        for sql in [
            "PRAGMA journal_mode=WAL", "PRAGMA synchronous=\(full ? "FULL" : "NORMAL")",
            "CREATE TABLE counters (id TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL) WITHOUT ROWID",
            "INSERT INTO counters VALUES ('counter', 9223372036854775807)",
        ] {
            guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
                throw LoadError("could not run \(sql)")
            }
        }
        func prepare(_ sql: String) throws -> OpaquePointer {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(opened, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
                throw LoadError("could not prepare \(sql)")
            }
            return statement
        }
        begin = try prepare("BEGIN IMMEDIATE")
        select = try prepare("SELECT n FROM counters WHERE id = 'counter'")
        update = try prepare("UPDATE counters SET n = ? WHERE id = 'counter'")
        commit = try prepare("COMMIT")
    }

    func step() throws {
        try run(begin)
        guard sqlite3_step(select) == SQLITE_ROW else { throw LoadError("select failed") }
        let value = sqlite3_column_int64(select, 0)
        sqlite3_reset(select)
        sqlite3_bind_int64(update, 1, value - 1)
        try run(update)
        try run(commit)
    }

    private func run(_ statement: OpaquePointer) throws {
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_DONE else { throw LoadError("sqlite step failed") }
    }
}

/// `EVALSHA` of a one-line decrement script on one hiredis connection, on the caller's thread.
final class RedisRaw: RawReadModifyWrite, @unchecked Sendable {
    // Used by one benchmark loop at a time.
    private let context: UnsafeMutablePointer<redisContext>
    private let arguments: [[UInt8]]

    init(port: Int, key: String) throws {
        guard let context = otp_redis_connect("127.0.0.1", Int32(port), 2000), otp_redis_error(context) == 0
        else {
            throw LoadError("could not connect to Redis on port \(port)")
        }
        self.context = context
        let script = "return redis.call('HINCRBY', KEYS[1], 'n', -1)"
        guard let hash = Self.command(context, ["SCRIPT", "LOAD", script].map { Array($0.utf8) }) else {
            throw LoadError("could not load the script")
        }
        arguments = [Array("EVALSHA".utf8), hash, Array("1".utf8), Array(key.utf8)]
    }

    func step() throws {
        guard Self.command(context, arguments) != nil else { throw LoadError("redis command failed") }
    }

    /// Sends a command; returns a string reply's bytes, an empty array for other replies, `nil` on failure.
    private static func command(
        _ context: UnsafeMutablePointer<redisContext>, _ arguments: [[UInt8]]
    ) -> [UInt8]? {
        let pointers = arguments.map { argument -> UnsafeMutablePointer<CChar> in
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, argument.count))
            argument.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress {
                    UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: bytes.count)
                }
            }
            return buffer
        }
        defer { pointers.forEach { $0.deallocate() } }
        var constPointers: [UnsafePointer<CChar>?] = pointers.map { UnsafePointer($0) }
        let lengths = arguments.map(\.count)
        guard let reply = otp_redis_command(context, Int32(arguments.count), &constPointers, lengths) else {
            return nil
        }
        defer { freeReplyObject(reply) }
        switch reply.pointee.type {
        case REDIS_REPLY_ERROR: return nil
        case REDIS_REPLY_STRING:
            return Array(UnsafeRawBufferPointer(start: reply.pointee.str, count: reply.pointee.len))
        default: return []
        }
    }
}
