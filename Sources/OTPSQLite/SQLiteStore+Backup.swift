import CSQLite
import Foundation
import OTPEngine

extension SQLiteStore {
    /// Copies the database at `path` into a new file at `destination` with SQLite's online backup,
    /// while servers keep using it; answers the pages copied.
    ///
    /// The copy is one consistent snapshot: the backup reads the database in a single step inside
    /// one read transaction, which in WAL mode never blocks a writer. The new file is readable by its
    /// owner only (it holds destinations and code hashes) and is a complete store: open it, or copy
    /// it into place while the server is stopped, to restore. The HMAC secret file and the approval
    /// tokens' signing keys are not in it: keep them with the backups, since without the secret no
    /// pending code and no authenticator factor in the copy can be checked again.
    ///
    /// - Throws: `StoreError` when there is no database at `path`, `destination` already exists, or
    ///   SQLite fails (the partial file is removed).
    @discardableResult
    public static func backup(path: String, to destination: String) throws(StoreError) -> Int {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError("there is no SQLite database at \(path)")
        }
        // Made first, owner-only and exclusive: an existing file is never overwritten.
        let descriptor = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(
                errno == EEXIST
                    ? "\(destination) already exists; a backup goes to a new file"
                    : "cannot create \(destination) (errno \(errno))")
        }
        close(descriptor)
        do {
            return try copy(from: path, to: destination)
        } catch {
            unlink(destination)
            throw error
        }
    }

    private static func copy(from path: String, to destination: String) throws(StoreError) -> Int {
        var source: OpaquePointer?
        var target: OpaquePointer?
        defer {
            sqlite3_close_v2(source)
            sqlite3_close_v2(target)
        }
        guard sqlite3_open_v2(path, &source, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let source else {
            throw StoreError("cannot open \(path) to back it up: \(message(source))")
        }
        sqlite3_busy_timeout(source, 2000)
        guard sqlite3_open_v2(destination, &target, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let target
        else {
            throw StoreError("cannot open \(destination) for the backup: \(message(target))")
        }
        guard let backup = sqlite3_backup_init(target, "main", source, "main") else {
            throw StoreError("cannot start the backup: \(message(target))")
        }
        var status: Int32
        var tries = 0
        repeat {
            // All pages in one step: one snapshot, however busy the database.
            status = sqlite3_backup_step(backup, -1)
            tries += 1
            if status == SQLITE_BUSY || status == SQLITE_LOCKED { usleep(10_000) }
        } while (status == SQLITE_BUSY || status == SQLITE_LOCKED) && tries < 200
        let pages = Int(sqlite3_backup_pagecount(backup))
        let finished = sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE, finished == SQLITE_OK else {
            throw StoreError("the backup did not finish: \(message(target)) (status \(status))")
        }
        // A backup of a WAL database is in WAL mode too; as a plain file it is whole by itself.
        guard sqlite3_exec(target, "PRAGMA journal_mode=DELETE", nil, nil, nil) == SQLITE_OK else {
            throw StoreError("cannot finish the backup file: \(message(target))")
        }
        return pages
    }

    private static func message(_ handle: OpaquePointer?) -> String {
        handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
    }
}
