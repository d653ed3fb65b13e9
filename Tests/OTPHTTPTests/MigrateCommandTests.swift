import Foundation
import OTPSQLite
import OTPTestSupport
import Testing

/// `otp migrate` and `otp serve --migrate` as an operator runs them, on a copy of a database made
/// before the schema had a version.
@Suite struct MigrateCommandTests {
    /// A copy of the fixture database (owner-only) in a fresh folder.
    static func oldDatabase() throws -> (directory: URL, path: String) {
        let directory = try temporaryDirectory()
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("OTPEngineTests/Fixtures/schema-0.sqlite3")
        let path = directory.appendingPathComponent("otp.sqlite3").path
        try FileManager.default.copyItem(atPath: fixture.path, toPath: path)
        chmod(path, 0o600)
        return (directory, path)
    }

    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        await (try ServeProcess(arguments)).finish()
    }

    @Test("--dry-run lists every pending step and changes nothing; a run applies them once")
    func dryRunThenMigrate() async throws {
        let (directory, path) = try Self.oldDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        let dry = try await Self.run(["migrate", "--store", "sqlite:\(path)", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        for step in SQLiteStore.migrations { #expect(dry.stdout.contains("pending \(step)")) }
        #expect(dry.stdout.contains("dry run: nothing changed"))
        #expect(try SQLiteStore.pendingMigrations(path: path).version == 0, "the dry run changed nothing")

        let run = try await Self.run(["migrate", "--store", "sqlite:\(path)"])
        #expect(run.status == 0, "\(run.stderr)")
        for step in SQLiteStore.migrations { #expect(run.stdout.contains("applied \(step)")) }
        #expect(try SQLiteStore.pendingMigrations(path: path).version == SQLiteStore.schemaVersion)

        let again = try await Self.run(["migrate", "--store", "sqlite:\(path)"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("nothing to migrate"))
        #expect(!again.stdout.contains("applied"))
    }

    @Test("otp serve refuses an older schema with one line naming otp migrate; --migrate serves it")
    func serveRefusesThenMigrates() async throws {
        let (directory, path) = try Self.oldDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = try ServeCommandTests.keyFile(in: directory)
        let common = [
            "serve", "--port", "0", "--api-key-file", keys, "--sender", "console", "--store",
            "sqlite:\(path)",
        ]
        let refused = try await Self.run(common)
        #expect(refused.status == 1)
        let line =
            refused.stderr.split(separator: "\n").first { $0.contains("schema") }.map(String.init) ?? ""
        #expect(
            line.contains(
                "the schema is version 0 and this program needs version \(SQLiteStore.schemaVersion)"))
        #expect(line.contains("otp migrate --store sqlite:\(path)"))
        #expect(line.contains("--migrate"))
        #expect(try SQLiteStore.pendingMigrations(path: path).version == 0, "the refusal changed nothing")

        let serve = try ServeProcess(common + ["--migrate"])
        let first = await serve.waitForFirstLine()
        #expect(first.contains("listening on http://"), "\(first)")
        _ = await serve.stop()
        #expect(try SQLiteStore.pendingMigrations(path: path).version == SQLiteStore.schemaVersion)
    }

    @Test("a newer schema is refused by otp migrate and otp serve --migrate alike, naming both versions")
    func newerSchema() async throws {
        let (directory, path) = try Self.oldDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try SQLiteStore.migrate(path: path)
        _ = try await runToEnd(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sqlite3, sys; d = sqlite3.connect(sys.argv[1]); d.execute('PRAGMA user_version = 42'); d.commit()",
                path,
            ])
        let migrate = try await Self.run(["migrate", "--store", "sqlite:\(path)"])
        #expect(migrate.status == 1)
        #expect(migrate.stderr.contains("version 42, newer than version \(SQLiteStore.schemaVersion)"))
        let keys = try ServeCommandTests.keyFile(in: directory)
        let serve = try await Self.run([
            "serve", "--port", "0", "--api-key-file", keys, "--sender", "console", "--store",
            "sqlite:\(path)",
            "--migrate",
        ])
        #expect(serve.status == 1)
        #expect(serve.stderr.contains("version 42, newer than version \(SQLiteStore.schemaVersion)"))
    }

    @Test(
        "bad usage exits 2; a missing database exits 1 and creates nothing; memory and Redis keep no schema")
    func errors() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let extra = try await Self.run(["migrate", "now"])
        #expect(extra.status == 2)
        #expect(extra.stderr.contains("takes no arguments"))
        let missing = directory.appendingPathComponent("absent.sqlite3").path
        let absent = try await Self.run(["migrate", "--store", "sqlite:\(missing)"])
        #expect(absent.status == 1)
        #expect(absent.stderr.contains("there is no SQLite database at \(missing)"))
        #expect(!FileManager.default.fileExists(atPath: missing))
        let memory = try await Self.run(["migrate", "--store", "memory"])
        #expect(memory.status == 0)
        #expect(memory.stdout.contains("nothing to migrate"))
        let redis = try await Self.run(["migrate", "--store", "redis://127.0.0.1:1"])
        #expect(redis.status == 0)
        #expect(redis.stdout.contains("keeps no schema"))
    }
}
