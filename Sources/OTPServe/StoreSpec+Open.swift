import OTPEngine
import OTPHTTP
import OTPRedis
import OTPSQLite

extension StoreSpec {
    /// Opens the store this names; the caller owns it and shuts it down.
    ///
    /// With `recordsEvents`, state changes write lifecycle events to the store's outbox. A schema
    /// older than this program's is brought up to date or refused, as `pendingMigrations` says; the
    /// refusal names `otp migrate` and `--migrate`.
    public func open(
        recordsEvents: Bool = false, pendingMigrations: PendingMigrations = .apply
    ) throws(ServerStartError) -> any VerificationStore {
        switch self {
        case .memory:
            return MemoryStore(recordsEvents: recordsEvents)
        case .sqlite(let path):
            do {
                return try SQLiteStore(
                    path: path, recordsEvents: recordsEvents, pendingMigrations: pendingMigrations)
            } catch {
                if let mismatch = error.underlying as? SchemaMismatch {
                    throw ServerStartError(
                        Self.schemaAdvice(mismatch, store: "SQLite store at \(path)", spec: self))
                }
                throw ServerStartError("cannot open the SQLite store at \(path): \(error)")
            }
        case .redis(let host, let port, let database, let username, let password, let keyPrefix):
            do {
                return try RedisStore(
                    host: host, port: port, database: database, keyPrefix: keyPrefix, username: username,
                    password: password, recordsEvents: recordsEvents)
            } catch {
                throw ServerStartError(
                    "cannot reach the Redis store at \(host):\(port)/\(database): \(error)")
            }
        }
    }
}

extension StoreSpec {
    /// This spec as `--store` takes it (a Redis password left out).
    public var argument: String {
        switch self {
        case .memory: "memory"
        case .sqlite(let path): "sqlite:\(path)"
        case .redis(let host, let port, let database, let username, _, let keyPrefix):
            "redis://\(username.map { "\($0)@" } ?? "")\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
                + (keyPrefix == "otp:" ? "" : "?prefix=\(keyPrefix)")
        }
    }

    /// The one line `otp serve` prints for a schema it will not run on: the facts and what to run.
    static func schemaAdvice(_ mismatch: SchemaMismatch, store: String, spec: StoreSpec) -> String {
        if mismatch.isNewer {
            return "the \(store): \(mismatch); run the otp that made it, or a newer one"
        }
        return "the \(store): \(mismatch); run otp migrate --store \(spec.argument) (--dry-run lists them), "
            + "or start with --migrate"
    }
}
