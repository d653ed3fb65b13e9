import Foundation
import OTPServer
import OTPTestSupport
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

    @Test("a database made before messages had a language gains the column and keeps its rows")
    func localeMigration() async throws {
        let path = temporaryDirectory() + "/old.sqlite3"
        let old = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("CREATE TABLE otp_verifications (id TEXT PRIMARY KEY NOT NULL, channel TEXT NOT NULL, "
                "destination TEXT NOT NULL, code_length INTEGER NOT NULL, code_hash BLOB NOT NULL, "
                "state TEXT NOT NULL, attempts_left INTEGER NOT NULL, sends_used INTEGER NOT NULL, "
                "created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, resend_available_at INTEGER, "
                "purge_at INTEGER NOT NULL, lease_token TEXT, lease_until INTEGER) WITHOUT ROWID")
            db.execute("INSERT INTO otp_verifications VALUES ('vf_old', 'sms', '+15550100', 6, x'00', "
                "'pending', 3, 1, 1795000000000, 4102444800000, NULL, 4102444800000, NULL, NULL)")
            db.commit()
            """
        _ = try await runToEnd("/usr/bin/env", ["python3", "-c", old, path])
        #expect(FileManager.default.fileExists(atPath: path))
        chmod(path, 0o600)
        let store = try SQLiteStoreFactory.open(path)
        let kept = try await store.record(id: "vf_old")
        #expect(kept?.destination == "+15550100")
        #expect(kept?.locale == nil)
        var record = StoreConformanceTests.sample("vf_new")
        record.locale = "ja"
        _ = try await store.insert(record, claim: nil, now: StoreConformanceTests.t0)
        #expect(try await store.record(id: "vf_new")?.locale == "ja")
        await store.shutdown()
    }
}
