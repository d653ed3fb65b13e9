import Foundation
import OTPEngine
import OTPPostgres
import OTPSQLite
import OTPServe

/// `otp migrate --store STORE [--dry-run]`: brings a store's schema up to this otp's, one
/// transaction per step, printing each step; `--dry-run` lists the pending steps and changes nothing.
///
/// Exit status: 0 when the schema is current afterwards (or the store keeps none), 1 when a step
/// fails or the schema is newer than this otp's, 2 for bad usage.
enum MigrateCommand {
    static let usage = "usage: otp migrate --store STORE [--dry-run]"

    /// The command's options, each declared once.
    enum Flags {
        static let dryRun = Flag("dry-run", "list the pending steps and change nothing")
    }

    static let specs: [OptionSpec] = [ServeOptions.store.spec, Flags.dryRun.spec]

    /// Runs the command; returns the exit status.
    static func main(_ arguments: [String]) async -> Int32 {
        let store: StoreSpec
        let dryRun: Bool
        do throws(UsageError) {
            guard
                let options = try storeCommandOptions(
                    arguments, command: "migrate", usage: usage, specs: specs)
            else { return 0 }
            store = try options.value(ServeOptions.store, or: .sqlite(path: "otp.sqlite3"))
            dryRun = options.flag(Flags.dryRun)
        } catch {
            printError("otp migrate: \(error.message) (see otp migrate --help)")
            return 2
        }
        switch store {
        case .memory:
            print("a memory store keeps no schema: nothing to migrate")
            return 0
        case .redis, .redisSentinel:
            print(
                "a Redis store keeps no schema (its keys are written as they are needed): nothing to migrate")
            return 0
        case .sqlite(let path):
            return sqlite(path: path, dryRun: dryRun)
        case .postgres(let url, let schema, _, let password):
            return await postgres(url: url, schema: schema, password: password)
        }
    }

    /// PostgreSQL's tables have one version so far: opening the store makes them when missing (in
    /// one transaction) and refuses tables of another version, so this reports what it found.
    private static func postgres(url: String, schema: String?, password: String?) async -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let password = password ?? environment["OTP_STORE_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        do throws(StoreError) {
            let store = try await PostgresStore.connect(conninfo: url, password: password, schema: schema)
            await store.shutdown()
            print(
                "the PostgreSQL store: schema version \(PostgresStore.schemaVersion), this otp's; nothing to migrate"
            )
            return 0
        } catch {
            printError("otp migrate: the PostgreSQL store: \(error)")
            return 1
        }
    }

    private static func sqlite(path: String, dryRun: Bool) -> Int32 {
        let name = "the SQLite store at \(path)"
        do throws(StoreError) {
            let (version, pending) = try SQLiteStore.pendingMigrations(path: path)
            print("\(name): schema version \(version); this otp's is \(SQLiteStore.schemaVersion)")
            guard !pending.isEmpty else {
                print("nothing to migrate")
                return 0
            }
            if dryRun {
                for step in pending { print("pending \(step)") }
                print("dry run: nothing changed")
                return 0
            }
            for step in try SQLiteStore.migrate(path: path) { print("applied \(step)") }
            print("schema version \(SQLiteStore.schemaVersion)")
            return 0
        } catch {
            if let mismatch = error.underlying as? SchemaMismatch {
                printError("otp migrate: \(name): \(mismatch); run the otp that made it, or a newer one")
            } else {
                printError("otp migrate: \(error)")
            }
            return 1
        }
    }
}
