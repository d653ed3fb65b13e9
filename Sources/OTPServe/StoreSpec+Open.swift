import OTPHTTP
import OTPRedis
import OTPSQLite
import OTPServer

extension StoreSpec {
    /// Opens the store this names; the caller owns it and shuts it down.
    public func open() throws(ServerStartError) -> any VerificationStore {
        switch self {
        case .memory:
            return MemoryStore()
        case .sqlite(let path):
            do {
                return try SQLiteStore(path: path)
            } catch {
                throw ServerStartError("cannot open the SQLite store at \(path): \(error)")
            }
        case .redis(let host, let port, let database, let username, let password):
            do {
                return try RedisStore(
                    host: host, port: port, database: database, username: username, password: password)
            } catch {
                throw ServerStartError(
                    "cannot reach the Redis store at \(host):\(port)/\(database): \(error)")
            }
        }
    }
}
