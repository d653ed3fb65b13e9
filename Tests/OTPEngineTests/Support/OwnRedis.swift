import Foundation
import OTPTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A `redis-server` of a test's own, on a free loopback port, for settings the shared one must not
/// take (a password, a replica); stopped by `stop()` or when the test process ends.
final class OwnRedis: @unchecked Sendable {
    let port: Int
    private let process = ChildProcess()
    private let keepAlive = Pipe()
    /// The server's working folder, removed when it stops.
    private var folder: URL?

    /// Starts the server with extra `redis-server` arguments and waits until it answers.
    ///
    /// The server works in a folder of its own: a replica writes the primary's snapshot to its
    /// working folder, which would otherwise be the test process's.
    convenience init(_ arguments: [String] = []) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "otp-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try self.init { port in
            "redis-server --port \(port) --bind 127.0.0.1 --dir '\(directory.path)' --save '' --appendonly no "
                + "--loglevel warning " + arguments.map { "'\($0)'" }.joined(separator: " ")
        }
        folder = directory
    }

    /// Starts a sentinel that monitors the primary at `primaryPort` under `name`.
    convenience init(sentinelFor primaryPort: Int, name: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "otp-sentinel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try self.init { port in
            let config = directory.appendingPathComponent("sentinel.conf").path
            let text = """
                port \(port)
                bind 127.0.0.1
                dir \(directory.path)
                sentinel resolve-hostnames no
                sentinel monitor \(name) 127.0.0.1 \(primaryPort) 1
                """
            _ = FileManager.default.createFile(atPath: config, contents: Data(text.utf8))
            return "redis-sentinel \(config)"
        }
    }

    private init(command: (Int) -> String) throws {
        guard let port = RedisTestServer.freePort() else {
            throw RedisTestServer.RedisUnavailable(description: "no free port")
        }
        self.port = port
        // The shell keeps the server while its standard input, a pipe this object holds, stays open.
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c",
            command(port) + " > /dev/null 2>&1 & server=$!; cat > /dev/null; kill -9 $server; wait $server",
        ]
        process.standardInput = .pipe(keepAlive)
        process.standardOutput = .null
        process.standardError = .null
        try process.run()
        for _ in 0..<100 {
            // Polls while the server starts (not a deadline in any test).
            if Self.answers(port: port) { return }
            usleep(50_000)
        }
        stop()
        throw RedisTestServer.RedisUnavailable(description: "redis-server did not start on port \(port)")
    }

    /// Stops the server and waits for it to exit.
    func stop() {
        try? keepAlive.fileHandleForWriting.close()
        awaitExit(process)
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    deinit { stop() }

    /// Runs `redis-cli` against this server and returns its output.
    @discardableResult
    func cli(_ arguments: [String]) throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        process.arguments = ["-p", String(port)] + arguments
        let output = Pipe()
        process.standardOutput = .pipe(output)
        process.standardError = .null
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    private static func answers(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
