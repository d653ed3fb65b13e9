import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process for tests, started with `posix_spawn`: the part of Foundation's `Process` the
/// tests use, without its launch.
///
/// swift-corelibs-foundation 6.3.1's `Process.run()` crashed the parallel test run (a `memcpy`
/// inside `run()`, "Bad pointer dereference" at a page boundary, one to three times a run, also
/// with every launch serialised). On Linux it lists the open descriptors and adds a close action
/// for each, while the other tests open and close sockets by the hundred. Here the child closes
/// every descriptor above its standard three itself (`posix_spawn_file_actions_addclosefrom_np`),
/// starts with no signal blocked and default handlers, and is reaped by its pid.
public final class ChildProcess: @unchecked Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream {
        /// The test process's own.
        case inherit
        /// `/dev/null`.
        case null
        /// A pipe; the test keeps the other end (`fileHandleForReading` of an output, `fileHandleForWriting` of
        /// the input).
        case pipe(Pipe)
    }

    /// Why a child could not start.
    public struct LaunchError: Error, CustomStringConvertible {
        /// The error number `posix_spawn` gave.
        public let code: Int32
        /// What could not start.
        public let executable: String
        public var description: String { "cannot start \(executable) (errno \(code))" }
    }

    /// The program, as a path.
    public var executableURL: URL?
    /// The arguments after the program's name.
    public var arguments: [String] = []
    /// The environment, or `nil` for the test process's own.
    public var environment: [String: String]?
    /// Standard input; `/dev/null` unless set.
    public var standardInput: Stream = .null
    /// Standard output; the test process's own unless set.
    public var standardOutput: Stream = .inherit
    /// Standard error; the test process's own unless set.
    public var standardError: Stream = .inherit

    private let lock = NSLock()
    private var pid: pid_t = 0
    private var status: Int32?

    /// Creates a child that has not started.
    public init() {}

    /// The child's process id, 0 before it started.
    public var processIdentifier: pid_t { lock.withLock { pid } }

    /// Starts the child.
    public func run() throws {
        let path = executableURL?.path ?? ""
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The child holds its ends once it runs; the parent's copies would keep a reader from seeing EOF.
        var parentCopies: [FileHandle] = []
        for (stream, target) in [
            (standardInput, STDIN_FILENO), (standardOutput, STDOUT_FILENO), (standardError, STDERR_FILENO),
        ] {
            switch stream {
            case .inherit: break
            case .null:
                posix_spawn_file_actions_addopen(
                    &actions, target, "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
            case .pipe(let pipe):
                let childEnd = target == STDIN_FILENO ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, childEnd.fileDescriptor, target)
                parentCopies.append(childEnd)
            }
        }
        guard Self.closeFrom(&actions, 3) == 0 else {
            throw LaunchError(code: ENOSYS, executable: path)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environment = self.environment ?? ProcessInfo.processInfo.environment
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw LaunchError(code: result, executable: path) }
        lock.withLock { pid = child }
        for copy in parentCopies { try? copy.close() }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc module
    /// does not declare.
    private static let closeFrom:
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
            guard
                let symbol = dlsym(
                    UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { return { _, _ in ENOSYS } }
            return unsafeBitCast(
                symbol,
                to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

    /// Whether the child has started and not yet exited (reaping it when it has).
    public var isRunning: Bool {
        lock.withLock {
            guard pid > 0, status == nil else { return false }
            var raw: Int32 = 0
            let reaped = waitpid(pid, &raw, WNOHANG)
            if reaped == pid { status = raw }
            return reaped == 0
        }
    }

    /// Blocks until the child exits.
    public func waitUntilExit() {
        let child = lock.withLock { status == nil ? pid : 0 }
        guard child > 0 else { return }
        var raw: Int32 = 0
        while waitpid(child, &raw, 0) < 0, errno == EINTR {}
        lock.withLock { if status == nil { status = raw } }
    }

    /// The exit status, or the signal that ended the child; 0 while it runs.
    public var terminationStatus: Int32 {
        guard let raw = lock.withLock({ status }) else { return 0 }
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : signal
    }

    /// Sends SIGTERM.
    public func terminate() {
        let child = processIdentifier
        if child > 0 { kill(child, SIGTERM) }
    }
}
