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
        case .redis:
            throw ServerStartError("the Redis store is not built into this server")
        }
    }
}
