import Foundation
import OTPSQLite
import Testing

/// `otp backup` as an operator runs it.
@Suite struct BackupCommandTests {
    @Test(
        "otp backup copies a SQLite store into a new owner-only file that opens as a store; never over a file"
    )
    func backup() async throws {
        let (directory, path) = try MigrateCommandTests.oldDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("copy.sqlite3").path
        let made = try await MigrateCommandTests.run(["backup", "--store", "sqlite:\(path)", "--to", copy])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("backed up \(path) to \(copy)"))
        #expect(made.stdout.contains("HMAC secret file"))
        let mode = try FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try SQLiteStore.pendingMigrations(path: copy).version == 0, "a copy of the store as it was")

        let again = try await MigrateCommandTests.run(["backup", "--store", "sqlite:\(path)", "--to", copy])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))
    }

    @Test("a backup without --to, of a Redis store, or with arguments is bad usage (2)")
    func usage() async throws {
        let noDestination = try await MigrateCommandTests.run(["backup", "--store", "sqlite:/tmp/x.sqlite3"])
        #expect(noDestination.status == 2)
        #expect(noDestination.stderr.contains("--to is needed"))
        let redis = try await MigrateCommandTests.run([
            "backup", "--store", "redis://127.0.0.1:1", "--to", "/tmp/r",
        ])
        #expect(redis.status == 2)
        #expect(redis.stderr.contains("saved by Redis itself"))
        let extra = try await MigrateCommandTests.run(["backup", "now", "--to", "/tmp/r"])
        #expect(extra.status == 2)
    }
}
