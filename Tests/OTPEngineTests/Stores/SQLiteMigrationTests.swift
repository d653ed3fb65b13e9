import Foundation
import OTPCore
import OTPEngine
import OTPTestSupport
import Testing

@testable import OTPSQLite

/// The SQLite schema's versions: a database made before the schema had one (kept as a fixture,
/// written by `otp serve` of that time) is refused until migrated, then its pending code and its
/// authenticator still verify; a schema newer than this program's is always refused.
@Suite struct SQLiteMigrationTests {
    /// What the fixture's maker wrote down: the pending verification's code, the factor's secret,
    /// the server's HMAC key.
    struct Facts: Decodable {
        let verificationID: String
        let code: String
        let createdAt: Date
        let factorID: String
        let totpSecretBase32: String
        let confirmedAt: Double
        let recoveryCode: String
        let secretHex: String
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A copy of the fixture database, owner-only, and its facts.
    static func fixture() throws -> (path: String, facts: Facts) {
        let path = temporaryDirectory() + "/schema-0.sqlite3"
        try FileManager.default.copyItem(
            atPath: fixtures.appendingPathComponent("schema-0.sqlite3").path, toPath: path)
        chmod(path, 0o600)
        let data = try Data(contentsOf: fixtures.appendingPathComponent("schema-0.json"))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            let format = ISO8601DateFormatter()
            format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            guard let date = format.date(from: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: text))
            }
            return date
        }
        return (path, try decoder.decode(Facts.self, from: data))
    }

    static func mismatch(_ body: () throws -> Void) -> SchemaMismatch? {
        do {
            try body()
            return nil
        } catch let error as StoreError {
            return error.underlying as? SchemaMismatch
        } catch {
            return nil
        }
    }

    /// The bytes of a hex string; an odd length or a non-hex pair throws.
    static func bytes(hex: String) throws -> [UInt8] {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: hex))
        }
        return try stride(from: 0, to: digits.count, by: 2).map { start in
            guard let byte = UInt8(String(decoding: digits[start..<start + 2], as: UTF8.self), radix: 16)
            else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: hex))
            }
            return byte
        }
    }

    static func base32(_ text: String) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bits = 0
        var value = 0
        var out: [UInt8] = []
        for character in text {
            guard let digit = alphabet.firstIndex(of: character) else { continue }
            value = (value << 5) | digit
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((value >> bits) & 0xFF))
            }
        }
        return out
    }

    @Test("the schema's steps are numbered 1, 2, 3 … with a summary each, and the last is the version")
    func numbering() {
        let versions = SQLiteStore.migrations.map(\.version)
        #expect(versions == Array(1...versions.count))
        #expect(SQLiteStore.schemaVersion == versions.last)
        #expect(SQLiteStore.migrations.allSatisfy { !$0.summary.isEmpty })
    }

    @Test("a new database gets the current schema even when pending steps are refused")
    func newDatabase() throws {
        let path = temporaryDirectory() + "/new.sqlite3"
        _ = try SQLiteStore(path: path, pendingMigrations: .refuse)
        let state = try SQLiteStore.pendingMigrations(path: path)
        #expect(state.version == SQLiteStore.schemaVersion)
        #expect(state.pending.isEmpty)
        #expect(try SQLiteStore.migrate(path: path).isEmpty, "nothing left to apply")
    }

    @Test(
        "a database made before the schema had a version is refused, listed, migrated once, and still verifies"
    )
    func fixtureUpgrade() async throws {
        let (path, facts) = try Self.fixture()
        let refused = Self.mismatch { _ = try SQLiteStore(path: path, pendingMigrations: .refuse) }
        #expect(
            refused
                == SchemaMismatch(
                    found: 0, needed: SQLiteStore.schemaVersion, pending: SQLiteStore.migrations))
        #expect(refused?.isNewer == false)
        let listed = try SQLiteStore.pendingMigrations(path: path)
        #expect(listed.version == 0)
        #expect(listed.pending == SQLiteStore.migrations)
        #expect(try SQLiteStore.migrate(path: path) == SQLiteStore.migrations)
        #expect(try SQLiteStore.migrate(path: path).isEmpty, "a second run applies nothing")

        let store = try SQLiteStore(path: path, pendingMigrations: .refuse)
        let later = facts.createdAt.addingTimeInterval(60)
        let verifier = Verifier(
            store: store, sender: RecordingSender(), policy: Policy(),
            secret: try Self.bytes(hex: facts.secretHex),
            now: { later })
        let wrong = facts.code == "000000" ? "111111" : "000000"
        await #expect(throws: VerifierError.incorrectCode(attemptsLeft: 2)) {
            _ = try await verifier.check(id: facts.verificationID, code: wrong, clientAddress: "192.0.2.1")
        }
        let approved = try await verifier.check(
            id: facts.verificationID, code: facts.code, clientAddress: "192.0.2.1")
        #expect(approved.status == .approved)

        let totp = TOTP(secret: Self.base32(facts.totpSecretBase32))
        let code = try #require(totp.code(at: later))
        let checked = try await verifier.checkTOTP(id: facts.factorID, code: code, clientAddress: "192.0.2.1")
        #expect(checked.factor.id == facts.factorID)
        let recovered = try await verifier.recoverTOTP(
            id: facts.factorID, code: facts.recoveryCode, clientAddress: "192.0.2.1")
        #expect(recovered.id == facts.factorID)

        // The kept verification is found by its destination and takes delivery attempts.
        let kept = try #require(try await store.record(id: facts.verificationID))
        let query = VerificationQuery(destination: kept.destination, limit: 5)
        #expect(
            try await store.verifications(matching: query, now: later).map(\.id) == [facts.verificationID])
        let attempt = DeliveryAttempt(
            verificationID: kept.id, at: later, channel: kept.channel, step: .resend, outcome: .failed,
            reason: "test")
        try await store.noteDelivery(attempt)
        #expect(try await store.deliveries(id: kept.id) == [attempt])
        await store.shutdown()
    }

    @Test("a database at version 5 takes one step, 6: the index by destination and the delivery attempts")
    func fromVersionFive() async throws {
        let path = temporaryDirectory() + "/five.sqlite3"
        let made = try SQLiteStore(path: path)
        let record = StoreConformanceTests.sample("vf_four")
        #expect(try await made.insert(record, claim: nil, now: StoreConformanceTests.t0) == .inserted)
        await made.shutdown()
        _ = try await runToEnd(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute('DROP TABLE otp_deliveries'); "
                    + "db.execute('DROP INDEX otp_verifications_destination'); "
                    + "db.execute('PRAGMA user_version = 5'); db.commit()",
                path,
            ])
        let listed = try SQLiteStore.pendingMigrations(path: path)
        #expect(listed.version == 5)
        #expect(listed.pending.map(\.version) == [6])
        #expect(SQLiteStore.schemaVersion == 6)
        let store = try SQLiteStore(path: path)
        let attempt = DeliveryAttempt(
            verificationID: "vf_four", at: StoreConformanceTests.t0, channel: .sms, step: .start,
            outcome: .sent)
        try await store.noteDelivery(attempt)
        #expect(try await store.deliveries(id: "vf_four") == [attempt])
        let query = VerificationQuery(destination: record.destination, limit: 5)
        #expect(
            try await store.verifications(matching: query, now: StoreConformanceTests.t0).map(\.id) == [
                "vf_four"
            ])
        await store.shutdown()
    }

    @Test("a schema newer than this program's is refused by open, listing and migrating alike")
    func newer() async throws {
        let path = temporaryDirectory() + "/newer.sqlite3"
        let made = try SQLiteStore(path: path)
        await made.shutdown()
        _ = try await runToEnd(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute('PRAGMA user_version = 99'); db.commit()",
                path,
            ])
        let expected = SchemaMismatch(found: 99, needed: SQLiteStore.schemaVersion, pending: [])
        #expect(
            Self.mismatch { _ = try SQLiteStore(path: path) } == expected, "even when steps would be applied")
        #expect(Self.mismatch { _ = try SQLiteStore.pendingMigrations(path: path) } == expected)
        #expect(Self.mismatch { _ = try SQLiteStore.migrate(path: path) } == expected)
        #expect(expected.isNewer)
        #expect(expected.description.contains("99"))
    }

    @Test("listing or migrating a database that does not exist says so and creates nothing")
    func missing() {
        let path = temporaryDirectory() + "/absent.sqlite3"
        #expect(throws: StoreError.self) { _ = try SQLiteStore.pendingMigrations(path: path) }
        #expect(throws: StoreError.self) { _ = try SQLiteStore.migrate(path: path) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
