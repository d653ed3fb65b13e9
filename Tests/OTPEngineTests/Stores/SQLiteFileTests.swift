import Foundation
import OTPCore
import OTPEngine
import OTPTestSupport
import Testing

@testable import OTPSQLite

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

    @Test(
        "a database made before refs, transactions and lock back-off gains the columns; its rows and factors still read"
    )
    func bindingAndLockMigration() async throws {
        let path = temporaryDirectory() + "/before.sqlite3"
        let old = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("CREATE TABLE otp_verifications (id TEXT PRIMARY KEY NOT NULL, channel TEXT NOT NULL, "
                "destination TEXT NOT NULL, code_length INTEGER NOT NULL, code_hash BLOB NOT NULL, "
                "state TEXT NOT NULL, attempts_left INTEGER NOT NULL, sends_used INTEGER NOT NULL, "
                "created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, resend_available_at INTEGER, "
                "purge_at INTEGER NOT NULL, lease_token TEXT, lease_until INTEGER, locale TEXT) WITHOUT ROWID")
            db.execute("INSERT INTO otp_verifications VALUES ('vf_old', 'sms', '+15550100', 6, x'00', "
                "'pending', 3, 1, 1795000000000, 4102444800000, NULL, 4102444800000, NULL, NULL, 'de')")
            db.execute("CREATE TABLE otp_events (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, "
                "verification_id TEXT NOT NULL, kind TEXT NOT NULL, channel TEXT NOT NULL, masked_to TEXT NOT NULL, "
                "at INTEGER NOT NULL, failures INTEGER NOT NULL DEFAULT 0, due_at INTEGER NOT NULL, "
                "delivered INTEGER NOT NULL DEFAULT 0)")
            db.execute("CREATE TABLE otp_totp_factors (id TEXT PRIMARY KEY NOT NULL, account TEXT NOT NULL, "
                "issuer TEXT NOT NULL, sealed_secret BLOB NOT NULL, status TEXT NOT NULL, last_step INTEGER, "
                "failures INTEGER NOT NULL, recovery BLOB NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID")
            db.execute("INSERT INTO otp_totp_factors VALUES ('tf_old', 'alice', 'Example', x'0102', 'active', "
                "55, 2, x'" + "11" * 32 + "', 1795000000000)")
            db.commit()
            """
        _ = try await runToEnd("/usr/bin/env", ["python3", "-c", old, path])
        chmod(path, 0o600)
        let store = try SQLiteStore(path: path, recordsEvents: true)
        let kept = try await store.record(id: "vf_old")
        #expect(kept?.locale == "de")
        #expect(kept?.ref == nil)
        #expect(kept?.transaction == nil)
        let factor = try #require(try await store.factor(id: "tf_old"))
        #expect(factor.lastUsedStep == 55)
        #expect(factor.failures == 2)
        #expect(factor.lockedUntil == nil)
        #expect(factor.locks == 0)
        #expect(factor.usedRecoveryHashes.isEmpty)
        guard
            case .used(let used) = try await store.recoverFactor(
                id: "tf_old", hash: Array(repeating: 0x11, count: 32), maxFailures: 5,
                now: StoreConformanceTests.t0)
        else {
            Issue.record("the old factor's recovery code did not work")
            return
        }
        #expect(used.usedRecoveryHashes.count == 1)
        var record = StoreConformanceTests.sample("vf_bound")
        record.ref = "user-7"
        record.transaction = TransactionDetails(amount: "1.00", currency: "EUR", payee: "Payee \"Q\"")
        _ = try await store.insert(record, claim: nil, now: StoreConformanceTests.t0)
        let read = try await store.record(id: "vf_bound")
        #expect(read?.ref == "user-7")
        #expect(read?.transaction == record.transaction)
        let events = try await store.claimEvents(
            now: StoreConformanceTests.t0.addingTimeInterval(1),
            leaseUntil: StoreConformanceTests.t0.addingTimeInterval(60),
            limit: 10)
        #expect(events.map(\.event.ref) == ["user-7"], "the new verification's pending event carries its ref")
        await store.shutdown()
    }

    @Test("health asks for a write: a SQLite store whose writes fail is unhealthy")
    func healthNeedsWrites() async throws {
        let store = try SQLiteStore(path: temporaryDirectory() + "/health.sqlite3")
        #expect(await store.ping())
        await store.refuseWritesForTesting()
        #expect(await !store.ping(), "a store that answers reads but refuses writes is not healthy")
        await #expect(throws: StoreError.self) {
            _ = try await store.insert(
                StoreConformanceTests.sample("vf_full"), claim: nil, now: StoreConformanceTests.t0)
        }
        await store.shutdown()
    }
}
