import Foundation
import OTPCore
import OTPEngine
import OTPTestSupport
import Testing

@testable import OTPSQLite

/// Backups of a SQLite store taken while it is written, restored into a fresh store.
@Suite struct SQLiteBackupTests {
    static let secret = Array("backup-test-secret-0123456789ab".utf8)
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(
        "a backup taken under load restores into a fresh store where a pending code and an active authenticator verify"
    )
    func underLoad() async throws {
        let folder = temporaryDirectory()
        let path = folder + "/live.sqlite3"
        let store = try SQLiteStore(path: path)
        let sender = RecordingSender()
        let verifier = Verifier(
            store: store, sender: sender, policy: relaxedPolicy(), secret: Self.secret, now: { Self.t0 })
        let pending = try await verifier.start(StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
        let code = try #require(await sender.lastCode(for: pending.verification.id))
        let enrolled = try await verifier.enrollTOTP(account: "kept@example.com", issuer: "OTPKit")
        let secret = try #require(
            URLComponents(string: enrolled.otpauthURI)?.queryItems?.first { $0.name == "secret" }?.value)
        let totp = TOTP(secret: SQLiteMigrationTests.base32(secret))
        let confirmed = try await verifier.checkTOTP(
            id: enrolled.factor.id, code: try #require(totp.code(at: Self.t0)), clientAddress: "192.0.2.1")
        #expect(confirmed.recoveryCodes?.isEmpty == false)

        // Starts keep writing through the store's own connection while the backup reads.
        let load = Task {
            var written = 0
            while !Task.isCancelled {
                let address = "198.51.100.\(written % 250 + 1)"
                let to = "+1555555\(String(format: "%04d", written % 10_000))"
                if (try? await verifier.start(StartRequest(to: to, clientAddress: address))) != nil {
                    written += 1
                }
            }
            return written
        }
        while await sender.messages.count < 21 { await Task.yield() }
        let backupPath = folder + "/backup.sqlite3"
        let pages = try SQLiteStore.backup(path: path, to: backupPath)
        load.cancel()
        let written = await load.value
        #expect(pages > 0)
        #expect(written >= 20, "starts were written while the backup ran")
        var status = stat()
        #expect(stat(backupPath, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600, "the backup is readable by its owner only")

        // Restored: a fresh store at a new path, opened from the copy.
        let restoredPath = folder + "/restored.sqlite3"
        try FileManager.default.copyItem(atPath: backupPath, toPath: restoredPath)
        let restored = try SQLiteStore(path: restoredPath, pendingMigrations: .refuse)
        let later = Self.t0.addingTimeInterval(90)
        let again = Verifier(
            store: restored, sender: RecordingSender(), policy: relaxedPolicy(), secret: Self.secret,
            now: { later })
        let approved = try await again.check(
            id: pending.verification.id, code: code, clientAddress: "192.0.2.1")
        #expect(approved.status == .approved)
        let checked = try await again.checkTOTP(
            id: enrolled.factor.id, code: try #require(totp.code(at: later)), clientAddress: "192.0.2.1")
        #expect(checked.factor.id == enrolled.factor.id)
        await restored.shutdown()
        await store.shutdown()
    }

    @Test("a backup never overwrites a file, and a missing database is refused without creating one")
    func refusals() async throws {
        let folder = temporaryDirectory()
        let path = folder + "/live.sqlite3"
        let store = try SQLiteStore(path: path)
        let existing = folder + "/existing"
        _ = FileManager.default.createFile(atPath: existing, contents: Data("keep me".utf8))
        #expect(throws: StoreError.self) { try SQLiteStore.backup(path: path, to: existing) }
        #expect(FileManager.default.contents(atPath: existing) == Data("keep me".utf8))
        let missing = folder + "/absent.sqlite3"
        #expect(throws: StoreError.self) { try SQLiteStore.backup(path: missing, to: folder + "/copy") }
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(!FileManager.default.fileExists(atPath: folder + "/copy"))
        #expect(throws: StoreError.self) {
            try SQLiteStore.backup(path: path, to: folder + "/no/such/dir/copy")
        }
        await store.shutdown()
    }
}
