import Foundation
import OTPTestSupport

/// A `redis-server` on its own loopback port, kept only while this object (or the test process) lives.
final class RedisProcess: @unchecked Sendable {
    let port: Int
    private let process = ChildProcess()
    private let keepAlive = Pipe()

    /// Starts the server and waits until it accepts connections.
    init(arguments: [String] = []) throws {
        port = try freePort()
        // The shell keeps redis-server only while its standard input, a pipe this object holds, stays
        // open: closing it, or the test process ending, stops the server. SIGKILL, because the server may
        // inherit a signal mask from this process that blocks SIGTERM.
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c",
            "redis-server --port \(port) --bind 127.0.0.1 --save '' --appendonly no --loglevel warning "
                + arguments.map { "'\($0)'" }.joined(separator: " ")
                + " > /dev/null 2>&1 & server=$!; cat > /dev/null; kill -9 $server; wait $server",
        ]
        process.standardInput = .pipe(keepAlive)
        process.standardOutput = .null
        process.standardError = .null
        try process.run()
        for _ in 0..<100 {
            if let socket = try? RawHTTP.connect(port: port) {
                close(socket)
                return
            }
            usleep(50_000)
        }
        stop()
        throw TestRedisError.cannotStart
    }

    /// Stops the server and waits for it to exit.
    func stop() {
        try? keepAlive.fileHandleForWriting.close()
        awaitExit(process)
    }

    deinit { stop() }
}

/// The Redis server the tests share: `OTP_TEST_REDIS_PORT` (scripts/test.sh starts one), or else one
/// this test process starts on first use.
enum TestRedis {
    private static let shared: Result<(port: Int, process: RedisProcess?), TestRedisError> = {
        if let text = ProcessInfo.processInfo.environment["OTP_TEST_REDIS_PORT"], let port = Int(text) {
            return .success((port, nil))
        }
        guard let process = try? RedisProcess() else { return .failure(.cannotStart) }
        return .success((process.port, process))
    }()

    /// The shared server's port.
    static func port() throws -> Int {
        try shared.get().port
    }
}

enum TestRedisError: Error {
    case noPort
    case cannotStart
}

/// A free loopback port (bound, read, released).
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
        }
    }
    guard bound else { throw TestRedisError.noPort }
    return Int(UInt16(bigEndian: address.sin_port))
}
