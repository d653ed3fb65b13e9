import OTPEngine
import OTPHTTP
import OTPPostgres
import OTPRedis
import OTPSQLite

extension StoreSpec {
    /// Opens the store this names; the caller owns it and shuts it down.
    ///
    /// With `recordsEvents`, state changes write lifecycle events to the store's outbox, their
    /// destinations masked by `eventMasking`. A schema
    /// older than this program's is brought up to date or refused, as `pendingMigrations` says; the
    /// refusal names `otp migrate` and `--migrate`.
    ///
    /// A Redis store makes each write wait for `waitReplicas` replicas, and tells `report` once when
    /// its calls start failing and once when they work again. A PostgreSQL store connects without
    /// blocking the caller's thread.
    public func open(
        recordsEvents: Bool = false, eventMasking: DestinationMasking = .plain,
        pendingMigrations: PendingMigrations = .apply, waitReplicas: Int = 0,
        report: (@Sendable (String) -> Void)? = nil
    ) async throws(ServerStartError) -> any VerificationStore {
        switch self {
        case .memory:
            return MemoryStore(recordsEvents: recordsEvents, eventMasking: eventMasking)
        case .sqlite(let path):
            do {
                return try SQLiteStore(
                    path: path, recordsEvents: recordsEvents, eventMasking: eventMasking,
                    pendingMigrations: pendingMigrations)
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
                    password: password, recordsEvents: recordsEvents, eventMasking: eventMasking,
                    waitReplicas: waitReplicas, report: report)
            } catch {
                throw ServerStartError(
                    "cannot use the Redis store at \(RedisAddress(host: host, port: port))/\(database): "
                        + Self.advice(error, password: password))
            }
        case .redisSentinel(let spec):
            do {
                return try RedisStore(
                    sentinels: spec.sentinels, primaryName: spec.primaryName, database: spec.database,
                    keyPrefix: spec.keyPrefix, username: spec.username, password: spec.password,
                    recordsEvents: recordsEvents, eventMasking: eventMasking, waitReplicas: waitReplicas,
                    report: report)
            } catch {
                throw ServerStartError(
                    "cannot use the Redis store \(spec.primaryName)/\(spec.database) through Sentinel: "
                        + Self.advice(error, password: spec.password))
            }
        case .postgres(let url, let schema, let connections, let password):
            do {
                return try await PostgresStore.connect(
                    conninfo: url, password: password, schema: schema, connections: connections,
                    recordsEvents: recordsEvents, eventMasking: eventMasking)
            } catch {
                throw ServerStartError("cannot open the PostgreSQL store: \(error)")
            }
        }
    }

    /// A Redis store's error, and where a missing or wrong password goes.
    static func advice(_ error: StoreError, password: String?) -> String {
        let reason = error.reason.hasPrefix("redis: ") ? String(error.reason.dropFirst(7)) : error.reason
        if reason.contains("NOAUTH") || reason.contains("WRONGPASS") || reason.contains("AUTH was refused") {
            return reason
                + (password == nil
                    ? "; give the password with --store-password-file PATH or OTP_STORE_PASSWORD"
                    : "; check --store-password-file or OTP_STORE_PASSWORD")
        }
        return reason
    }

    /// Refuses a Redis store that keeps nothing across a restart, unless `allowVolatile`.
    ///
    /// Such a store would forget every authenticator factor. When the configuration cannot be read,
    /// says so through `warn` and goes on.
    public static func checkFactorPersistence(
        of store: any VerificationStore, allowVolatile: Bool, warn: @Sendable (String) -> Void
    ) async throws(ServerStartError) {
        guard let redis = store as? RedisStore, !allowVolatile else { return }
        let persistence: RedisPersistence
        do {
            persistence = try await redis.persistence()
        } catch {
            throw ServerStartError("cannot read the Redis store's persistence settings: \(error)")
        }
        switch persistence {
        case .persistent:
            return
        case .volatile:
            throw ServerStartError(
                "the Redis store keeps nothing across a restart (appendonly no, save \"\"), so it would forget "
                    + "every authenticator factor: turn on appendonly or save, or start with --allow-volatile-factors"
            )
        case .unknown(let reason):
            warn(
                "cannot tell whether the Redis store keeps authenticator factors across a restart: \(reason)")
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
        case .redisSentinel(let spec):
            "redis-sentinel://\(spec.username.map { "\($0)@" } ?? "")"
                + spec.sentinels.map(\.description).joined(separator: ",")
                + "/\(spec.primaryName)/\(spec.database)"
                + (spec.keyPrefix == "otp:" ? "" : "?prefix=\(spec.keyPrefix)")
        case .postgres(let url, let schema, _, _):
            url + (schema.map { (url.contains("?") ? "&" : "?") + "schema=\($0)" } ?? "")
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
