import Foundation
import OTPEngine
import OTPRedis
import OTPTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The Redis server the tests use: the one `scripts/test.sh` started (`OTP_TEST_REDIS_PORT`),
/// or else one this process starts on a free loopback port and stops when it exits.
///
/// Tests never skip for want of Redis: if neither works, the Redis tests fail.
enum RedisTestServer {
    /// The port, found or started on first use.
    static let port: Result<Int, RedisUnavailable> = findOrStart()

    struct RedisUnavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// A fresh store on the test server under a key prefix of its own.
    static func makeStores(count: Int) throws -> [any VerificationStore] {
        try makeStores(count: count, recordsEvents: false)
    }

    static func makeStores(
        count: Int, recordsEvents: Bool, eventMasking: DestinationMasking = .plain
    ) throws -> [RedisStore] {
        let port = try port.get()
        let prefix = "otp-test:\(UUID().uuidString):"
        return try (0..<count).map { _ in
            try RedisStore(
                host: "127.0.0.1", port: port, keyPrefix: prefix, connections: 2,
                recordsEvents: recordsEvents,
                eventMasking: eventMasking)
        }
    }

    private static func findOrStart() -> Result<Int, RedisUnavailable> {
        if let text = ProcessInfo.processInfo.environment["OTP_TEST_REDIS_PORT"], let port = Int(text) {
            return answers(port: port, within: 50)
                ? .success(port) : .failure(RedisUnavailable(description: "no Redis answers on port \(port)"))
        }
        guard let port = freePort() else { return .failure(RedisUnavailable(description: "no free port")) }
        // A watchdog shell stops the server when this process goes, even if it crashes. It asks
        // Redis to shut down rather than signalling it: children inherit this process's blocked signals.
        let script = """
            redis-server --port \(port) --bind 127.0.0.1 --save '' --appendonly no --loglevel warning &
            server=$!
            while kill -0 \(getpid()) 2>/dev/null && kill -0 $server 2>/dev/null; do sleep 1; done
            redis-cli -p \(port) shutdown nosave >/dev/null 2>&1
            """
        let process = ChildProcess()
        // In a session of its own, so nothing aimed at this process's group stops the watchdog early.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["/bin/sh", "-c", script]
        process.standardOutput = .null
        process.standardError = .null
        do {
            try process.run()
        } catch {
            return .failure(RedisUnavailable(description: "could not run redis-server: \(error)"))
        }
        guard answers(port: port, within: 100) else {
            return .failure(
                RedisUnavailable(description: "redis-server did not start on port \(port); is it installed?"))
        }
        return .success(port)
    }

    /// Polls the server while it starts up (not a deadline in any test).
    private static func answers(port: Int, within tries: Int) -> Bool {
        for _ in 0..<tries {
            if let store = try? RedisStore(host: "127.0.0.1", port: port, connections: 1) {
                _ = store
                return true
            }
            usleep(50_000)
        }
        return false
    }

    static func freePort() -> Int? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { return nil }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { return nil }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
