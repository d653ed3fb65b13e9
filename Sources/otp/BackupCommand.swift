import Foundation
import OTPEngine
import OTPSQLite
import OTPServe

/// `otp backup --store sqlite:PATH --to FILE`: a consistent copy of a SQLite store taken while
/// servers use it (SQLite's online backup), into a new owner-only file.
///
/// Exit status: 0 when the copy is made, 1 when it cannot be, 2 for bad usage.
enum BackupCommand {
    static let usage = "usage: otp backup --store sqlite:PATH --to FILE"

    /// The command's options, each declared once.
    enum Flags {
        static let to = Option.text(
            "to", "FILE", "the new file the copy goes to; an existing file is refused")
    }

    static let specs: [OptionSpec] = [ServeOptions.store.spec, Flags.to.spec]

    /// Runs the command; returns the exit status.
    static func main(_ arguments: [String]) async -> Int32 {
        let store: StoreSpec
        let destination: String
        do throws(UsageError) {
            guard
                let options = try storeCommandOptions(
                    arguments, command: "backup", usage: usage, specs: specs)
            else { return 0 }
            store = try options.value(ServeOptions.store, or: .sqlite(path: "otp.sqlite3"))
            guard let given = try options.value(Flags.to), !given.isEmpty else {
                throw UsageError("--to is needed: the new file the copy goes to")
            }
            destination = given
        } catch {
            printError("otp backup: \(error.message) (see otp backup --help)")
            return 2
        }
        guard case .sqlite(let path) = store else {
            printError(
                "otp backup: only a SQLite store is backed up by otp; a Redis store is saved by Redis itself "
                    + "(BGSAVE or its append-only file), and a memory store has nothing to keep")
            return 2
        }
        do throws(StoreError) {
            let pages = try SQLiteStore.backup(path: path, to: destination)
            print("backed up \(path) to \(destination) (\(pages) pages)")
            print(
                "keep the HMAC secret file and the signing keys with it: without them its codes cannot be checked"
            )
            return 0
        } catch {
            printError("otp backup: \(error)")
            return 1
        }
    }
}
