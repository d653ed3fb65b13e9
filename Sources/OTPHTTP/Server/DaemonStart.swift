import CMicroHTTPD
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starts libmicrohttpd with the server's options.
///
/// `MHD_start_daemon` is variadic, which Swift cannot call; `MHD_start_daemon_va` takes the same options as
/// a `va_list`, each argument with the C type its option reads (`unsigned int`, `size_t`, pointers).
enum DaemonStart {
    /// What the daemon is started with, beyond the configuration.
    struct Settings {
        /// The seconds of the idle timeout.
        var timeoutSeconds: Int
        /// The connection cap after the open-file limit.
        var connectionLimit: Int
        /// The pointer every callback gets: the server's core.
        var core: UnsafeMutableRawPointer
    }

    /// Starts a daemon bound to the configuration's host (an IPv4 or IPv6 literal) and port; `nil` when the
    /// host is not a literal or the daemon cannot start.
    static func start(_ configuration: HTTPServerConfiguration, _ settings: Settings) -> OpaquePointer? {
        guard let address = SocketAddress(host: configuration.host, port: UInt16(configuration.port)) else {
            return nil
        }
        var flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_USE_ERROR_LOG.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let completed: MHD_RequestCompletedCallback = otpRequestCompleted
        let notified: MHD_NotifyConnectionCallback = otpConnectionNotified
        let core = OpaquePointer(settings.core)
        return address.withSockaddr { sockaddr in
            // Pointers go as `OpaquePointer`, the pointer type that is a `CVarArg` whatever it points to.
            var arguments: [any CVarArg] = [
                option(.SOCK_ADDR), OpaquePointer(sockaddr),
                option(.NOTIFY_COMPLETED), unsafeBitCast(completed, to: OpaquePointer.self), core,
                option(.NOTIFY_CONNECTION), unsafeBitCast(notified, to: OpaquePointer.self), core,
                option(.CONNECTION_TIMEOUT), cUnsigned(settings.timeoutSeconds),
                option(.CONNECTION_MEMORY_LIMIT), max(0, configuration.connectionMemoryLimit),
                option(.CONNECTION_LIMIT), cUnsigned(settings.connectionLimit),
                option(.PER_IP_CONNECTION_LIMIT), cUnsigned(configuration.maxConnectionsPerAddress),
            ]
            // A pool of one is no pool: the polling thread runs the connections itself.
            if configuration.threads > 1 {
                arguments += [option(.THREAD_POOL_SIZE), cUnsigned(configuration.threads)]
            }
            arguments.append(option(.END))
            return withVaList(arguments) { list in
                MHD_start_daemon_va(
                    UInt32(flags), UInt16(configuration.port), nil, nil, otpAccessHandler, settings.core, list
                )
            }
        }
    }

    /// An option's tag as the `int`-sized value `va_arg` reads.
    private static func option(_ option: MHD_OPTION) -> CUnsignedInt {
        option.rawValue
    }

    /// A count as the `unsigned int` libmicrohttpd reads, clamped to its range.
    private static func cUnsigned(_ value: Int) -> CUnsignedInt {
        CUnsignedInt(min(max(0, value), Int(CUnsignedInt.max)))
    }
}

/// An IPv4 or IPv6 socket address parsed from a literal.
private enum SocketAddress {
    case v4(sockaddr_in)
    case v6(sockaddr_in6)

    init?(host: String, port: UInt16) {
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            self = .v4(v4)
            return
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            self = .v6(v6)
            return
        }
        return nil
    }

    var isIPv6: Bool {
        if case .v6 = self { return true }
        return false
    }

    /// Runs `body` with a pointer to the address, valid for the call only.
    func withSockaddr<T>(_ body: (UnsafeRawPointer) -> T) -> T {
        switch self {
        case .v4(var address): withUnsafePointer(to: &address) { body(UnsafeRawPointer($0)) }
        case .v6(var address): withUnsafePointer(to: &address) { body(UnsafeRawPointer($0)) }
        }
    }
}
