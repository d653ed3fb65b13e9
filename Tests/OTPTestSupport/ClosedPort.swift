import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback port where nothing listens, held for as long as this object lives: a server that
/// is down.
///
/// The port stays bound (never listening), so a connection to it is refused and no other test
/// running in parallel can be given the same port meanwhile; a port found free and closed again
/// was taken by another test's server in the parallel run, which then answered the requests meant
/// to fail.
public final class ClosedPort: @unchecked Sendable {
    /// The port.
    public let port: Int
    private var descriptor: Int32

    /// Binds a free loopback port and keeps it.
    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard fd >= 0, bound else {
            if fd >= 0 { close(fd) }
            throw ClosedPortError.cannotBind
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Frees the port, for a test that starts its own server on it next.
    ///
    /// The port was held until this instant, not left free for another test to take meanwhile.
    /// Call it from one thread.
    public func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}

/// Why no port could be held.
public enum ClosedPortError: Error {
    /// No loopback port could be bound.
    case cannotBind
}
