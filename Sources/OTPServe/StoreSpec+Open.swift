import OTPHTTP
import OTPPostgres
import OTPRedis
import OTPSQLite
import OTPServer

extension StoreSpec {
    /// Opens the store this names; the caller owns it and shuts it down.
    ///
    /// With `recordsEvents`, state changes write lifecycle events to the store's outbox. A
    /// PostgreSQL store connects without blocking the caller's thread.
    public func open(recordsEvents: Bool = false) async throws(ServerStartError) -> any VerificationStore {
        switch self {
        case .memory:
            return MemoryStore(recordsEvents: recordsEvents)
        case .sqlite(let path):
            do {
                return try SQLiteStore(path: path, recordsEvents: recordsEvents)
            } catch {
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
        case .postgres(let url, let schema, let connections, let password):
            do {
                return try await PostgresStore.connect(
                    conninfo: url, password: password, schema: schema, connections: connections,
                    recordsEvents: recordsEvents)
            } catch {
                throw ServerStartError("cannot open the PostgreSQL store: \(error)")
            }
        }
    }
}
