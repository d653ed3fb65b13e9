import Foundation
import OTPServer
import Testing

@Suite struct SQLiteFileTests {
    @Test("a new SQLite store's database, WAL and shared-memory files are readable by their owner only")
    func ownerOnlyFiles() async throws {
        let path = temporaryDirectory() + "/private.sqlite3"
        let store = try SQLiteStoreFactory.open(path)
        _ = try await store.insert(
            StoreConformanceTests.sample("vf_private"), claim: nil, now: StoreConformanceTests.t0)
        for file in [path, path + "-wal", path + "-shm"] {
            var status = stat()
            #expect(stat(file, &status) == 0, "\(file) exists")
            #expect(
                status.st_mode & 0o777 == 0o600,
                "\(file) has mode \(String(status.st_mode & 0o777, radix: 8))")
        }
        await store.shutdown()
    }
}
