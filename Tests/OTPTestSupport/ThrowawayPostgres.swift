import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL server of its own for tests: a fresh cluster in a temporary directory on a free
/// loopback port, removed when the test process exits (even if it crashes).
///
/// A watchdog shell, in a session of its own, runs `initdb` and `pg_ctl start`, then waits for the
/// test process to go and stops the server (`pg_ctl stop -m immediate`) and removes the directory.
/// As root, the server runs as the `postgres` user (`initdb` refuses root). Being thrown away, it
/// does not wait for the disk (`fsync=off`); each commit still reaches the operating system before
/// it returns, so a commit outlives the server's crash (`pg_ctl stop -m immediate`). The cluster trusts
/// the superuser `otp` on loopback and asks ``lockedRole`` for its password, for tests of a
/// refused login.
public final class ThrowawayPostgres: @unchecked Sendable {
    /// A role that must log in with ``lockedPassword`` (SCRAM), unlike `otp`.
    public static let lockedRole = "otp_locked"
    /// The password of ``lockedRole``.
    public static let lockedPassword = "locked-role-test-password"
    /// The server's binaries.
    public static let binaries = "/usr/lib/postgresql/15/bin"

    /// The loopback port it listens on.
    public let port: Int
    /// The directory holding the cluster (`data`), its socket and its log.
    public let directory: String

    /// The superuser's URL, trusted without a password.
    public var url: String { "postgres://otp@127.0.0.1:\(port)/postgres" }

    /// Why a throwaway server could not start.
    public struct Unavailable: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String

        /// Creates the error.
        public init(description: String) { self.description = description }
    }

    /// Starts a server and waits until it takes connections (polling while it starts up).
    public init() throws {
        guard let port = Self.freePort() else { throw Unavailable(description: "no free port") }
        self.port = port
        directory = "/tmp/otp-pg-" + UUID().uuidString.prefix(8).lowercased()
        let script = """
            dir=\(directory)
            mkdir -p "$dir" && chmod 755 "$dir"
            [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
            \(Self.asServerUser) \(Self.binaries)/initdb -D "$dir/data" -A trust -U otp >"$dir/initdb.log" 2>&1
            printf 'host all \(Self.lockedRole) 127.0.0.1/32 scram-sha-256\\n' >"$dir/hba"
            cat "$dir/data/pg_hba.conf" >>"$dir/hba" && cat "$dir/hba" >"$dir/data/pg_hba.conf"
            \(Self.startCommand(directory: directory, port: port)) >/dev/null 2>&1
            \(Self.asServerUser) \(Self.binaries)/psql -h "$dir" -p \(port) -U otp -d postgres -q \
              -c "CREATE ROLE \(Self.lockedRole) LOGIN PASSWORD '\(Self.lockedPassword)'" \
              -c "GRANT CREATE ON DATABASE postgres TO \(Self.lockedRole)" >/dev/null 2>&1
            touch "$dir/ready"
            while [ -d /proc/\(getpid()) ]; do sleep 1; done
            # A server a test froze and left frozen could not stop.
            main=$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null)
            [ -n "$main" ] && kill -CONT "$main" 2>/dev/null && pkill -CONT -P "$main" 2>/dev/null
            \(Self.asServerUser) \(Self.binaries)/pg_ctl -D "$dir/data" -m immediate stop >/dev/null 2>&1
            rm -rf "$dir"
            """
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["/bin/sh", "-c", script]
        process.standardOutput = .null
        process.standardError = .null
        try process.run()
        for _ in 0..<600 where !FileManager.default.fileExists(atPath: directory + "/ready") {
            usleep(100_000)
        }
        guard FileManager.default.fileExists(atPath: directory + "/ready") else {
            throw Unavailable(description: "postgres did not start in \(directory) on port \(port)")
        }
    }

    /// The prefix that runs a command as the server's user: `runuser -u postgres --` as root.
    static var asServerUser: String { getuid() == 0 ? "runuser -u postgres --" : "" }

    static func startCommand(directory: String, port: Int) -> String {
        "\(asServerUser) \(binaries)/pg_ctl -D \(directory)/data -l \(directory)/server.log -w "
            + "-o '-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c max_connections=500 "
            + "-c fsync=off -c full_page_writes=off' start"
    }

    /// Stops the server at once, as a crash would (`pg_ctl stop -m immediate`).
    public func stop() async throws {
        _ = try await runToEnd(
            "/bin/sh",
            ["-c", "\(Self.asServerUser) \(Self.binaries)/pg_ctl -D \(directory)/data -m immediate stop"])
    }

    /// Starts the stopped server again on the same port, and waits until it takes connections.
    public func start() async throws {
        _ = try await runToEnd("/bin/sh", ["-c", Self.startCommand(directory: directory, port: port)])
    }

    /// Freezes the server and every process of it (`SIGSTOP`): connections stay open and nothing
    /// answers, as on a host that hangs.
    public func freeze() throws { try signalAll(SIGSTOP) }

    /// Lets a frozen server run again (`SIGCONT`).
    public func thaw() throws { try signalAll(SIGCONT) }

    /// Sends a signal to the postmaster and to each of its children, by process id.
    private func signalAll(_ signal: Int32) throws {
        let pidFile = (try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8)) ?? ""
        guard let main = pid_t(pidFile.split(separator: "\n").first ?? "") else {
            throw Unavailable(description: "no postmaster.pid in \(directory)")
        }
        var targets = [main]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After the command's closing parenthesis: the state, then the parent's id.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == main { targets.append(pid) }
        }
        for pid in targets { kill(pid, signal) }
    }

    private static func freePort() -> Int? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        return named ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}
