#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server's HMAC key in a file: read it, or create it with 32 fresh random bytes and mode 0600.
public enum SecretKey {
    /// The size of a fresh key in bytes.
    public static let byteCount = 32
    /// The smallest key accepted from a file, in bytes.
    public static let minimumByteCount = 16

    /// Why a key file could not be used.
    public struct LoadError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What went wrong with the file; never the key.
        public var reason: String

        /// Creates an error.
        public init(_ reason: String) {
            self.reason = reason
        }

        /// What went wrong.
        public var description: String { reason }
    }

    /// The key in the file at `path`, created first (exclusively, mode 0600) when the file does not exist.
    public static func loadOrCreate(path: String) throws -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return try loadOrCreate(path: path, using: &generator)
    }

    /// The key in the file at `path`, created from `generator` when the file does not exist.
    public static func loadOrCreate(
        path: String, using generator: inout some RandomNumberGenerator
    ) throws
        -> [UInt8]
    {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if descriptor >= 0 {
            let key = CodeGenerator.bytes(count: byteCount, using: &generator)
            let written = key.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            let synced = fsync(descriptor)
            close(descriptor)
            guard written == byteCount, synced == 0 else {
                unlink(path)
                throw LoadError("could not write the key file \(path) (errno \(errno))")
            }
            return key
        }
        guard errno == EEXIST else {
            throw LoadError("could not create the key file \(path) (errno \(errno))")
        }
        return try load(path: path)
    }

    /// The name of the user this process runs as, or its id when it has no name.
    static func currentUserName() -> String {
        let uid = geteuid()
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return String(cString: name)
    }

    /// The bytes of a private file (``isPrivate(mode:owner:)``), checked on the open file: one
    /// whose group or others may use it beyond that is refused, naming `chmod 600`.
    ///
    /// - Parameters:
    ///   - path: the file.
    ///   - what: how errors name the file, such as "the key file" or "--api-key-file".
    ///   - limit: the most bytes read; a longer file is refused.
    /// - Returns: the file's bytes.
    /// - Throws: ``LoadError`` when the file cannot be opened or read, others can read it, or it is too long.
    package static func readPrivate(path: String, what: String, limit: Int) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            let code = errno
            let reason = String(cString: strerror(code))
            // The usual cause: a file made by root for a service that runs as its own user.
            let hint =
                code == EACCES
                ? "; it must be readable by the user the server runs as (\(Self.currentUserName())): "
                    + "owned by that user with mode 0600, or by root with that user's group and mode 0640"
                : ""
            throw LoadError("could not open \(what) \(path): \(reason) (errno \(code))\(hint)")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw LoadError("could not read the mode of \(what) \(path) (errno \(errno))")
        }
        let mode = UInt32(status.st_mode) & 0o777
        guard isPrivate(mode: mode, owner: UInt32(status.st_uid)) else {
            throw LoadError(
                "\(what) \(path) has mode \(String(mode, radix: 8)), open to others: chmod 600 \(path)"
                    + " (or, to let its group read it, make root its owner and chmod 640)")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 { throw LoadError("could not read \(what) \(path) (errno \(errno))") }
            if count == 0 { break }
            bytes += buffer.prefix(count)
            if bytes.count > limit { throw LoadError("\(what) \(path) is over \(limit) bytes") }
        }
        return bytes
    }

    /// Whether a file's mode keeps a secret: no one but its owner may read or write it (`0600`,
    /// `0400`), or, for a file root owns, its group may also read it (`0640`, `0440`), never write
    /// it, and others nothing.
    ///
    /// The second form is PostgreSQL's rule for its key files. It is how container platforms
    /// hand secrets to a service that does not run as root: Kubernetes mounts a secret owned by
    /// root and, with the pod's `fsGroup`, by the service's group.
    package static func isPrivate(mode: UInt32, owner: UInt32) -> Bool {
        if mode & 0o077 == 0 { return true }
        return owner == 0 && mode & 0o037 == 0
    }

    /// Sets a file that its group or others can read or write to 0600; the mode it had, or `nil`
    /// when it was already owner-only or does not exist.
    package static func restrictToOwner(path: String) -> UInt32? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let mode = UInt32(status.st_mode) & 0o777
        guard mode & 0o077 != 0 else { return nil }
        guard chmod(path, 0o600) == 0 else { return nil }
        return mode
    }

    /// The key in an existing file, which must be private (``isPrivate(mode:owner:)``).
    ///
    /// A key file that is not private (``isPrivate(mode:owner:)``) is refused: whoever reads the
    /// key can forge rate-limit keys and test codes offline against a stolen store.
    public static func load(path: String) throws -> [UInt8] {
        let key = try readPrivate(path: path, what: "the key file", limit: 4096)
        guard key.count >= minimumByteCount else {
            throw LoadError(
                "the key file \(path) holds \(key.count) bytes; at least \(minimumByteCount) are needed")
        }
        return key
    }
}
