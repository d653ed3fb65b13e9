import OTPRedis
import OTPSQLite
import OTPServer

/// Opens the store a configuration names.
enum StoreFactory {
    static func open(
        _ store: ServerConfiguration.Store
    ) async throws(ServerStartError) -> any VerificationStore {
        switch store {
        case .memory:
            return MemoryStore()
        case .sqlite(let path):
            do {
                return try SQLiteStore(path: path)
            } catch {
                throw ServerStartError("cannot open the SQLite store at \(path): \(error)")
            }
        case .redis(let host, let port, let database):
            do {
                return try RedisStore(host: host, port: port, database: database)
            } catch {
                throw ServerStartError(
                    "cannot reach the Redis store at \(host):\(port)/\(database): \(error)")
            }
        }
    }
}
