import CSQLite
import Foundation
import OTPEngine

/// One SQLite connection with its prepared statements.
///
/// Not thread-safe by itself: ``SQLiteStore`` owns it and uses it from its serial queue only.
final class SQLiteConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    /// The same statements found by where their text's UTF-8 lives (see ``prepared(_:)``).
    private var statementsByAddress: [UnsafeRawPointer: OpaquePointer] = [:]
    /// Where ``query(_:_:)`` copies its text and blob parameters, bound in place (`SQLITE_STATIC`)
    /// instead of SQLite copying each into memory of its own; grown as needed, and reused because
    /// every query clears its bindings before it returns.
    private var parameterBytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 512, alignment: 8)

    init(path: String, synchronous: SQLiteStore.Durability) throws(StoreError) {
        // SQLite creates the WAL and shared-memory files with the database file's mode: making the
        // file first, owner-only, keeps destinations and live ids from other local users.
        if path != ":memory:", !path.isEmpty {
            let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor >= 0 { try? FileHandle(fileDescriptor: descriptor).close() }
        }
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard let opened else { throw StoreError("sqlite: could not open the database (status \(status))") }
        handle = opened
        guard status == SQLITE_OK else {
            let message = Self.message(of: opened)
            sqlite3_close_v2(opened)
            throw StoreError("sqlite: could not open the database: \(message)")
        }
        sqlite3_busy_timeout(handle, 2000)
        try execute("PRAGMA journal_mode=WAL")
        try setSynchronous(synchronous)
        try execute("PRAGMA foreign_keys=OFF")
        // A group's savepoints keep the pages they may roll back in memory, not in a temporary file.
        try execute("PRAGMA temp_store=MEMORY")
    }

    /// Hands checkpoints to `checkpointer` instead of the commit that crosses SQLite's 1,000 pages.
    ///
    /// That commit would copy the WAL back into the database and sync it while every queued call
    /// waits. Past ``walPagesBeforeCommitCheckpoints``, when the checkpointer falls that far behind,
    /// the commit checkpoints itself again.
    func checkpointAside(with checkpointer: SQLiteCheckpointer) {
        // A checkpoint in the commit was a fifth of a start's time under steady writes (`pwrite` and
        // `fdatasync` in a profile), and the p99 of every call behind it.
        walHookTarget = Unmanaged.passUnretained(checkpointer)
        sqlite3_wal_hook(
            handle,
            { context, database, name, pages in
                guard let context else { return SQLITE_OK }
                if pages >= SQLiteConnection.walPagesBeforeCommitCheckpoints {
                    sqlite3_wal_checkpoint_v2(database, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                } else if pages >= SQLiteConnection.walPagesBeforeCheckpointAside {
                    Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().request(
                        walPages: pages)
                }
                return SQLITE_OK
            }, walHookTarget?.toOpaque())
    }

    /// The checkpointer the WAL hook calls; the store keeps it alive as long as this connection.
    private var walHookTarget: Unmanaged<SQLiteCheckpointer>?

    /// The WAL size, in pages, past which the checkpointer is asked to copy it back (SQLite's own
    /// automatic checkpoint starts here).
    static let walPagesBeforeCheckpointAside: Int32 = 1_000

    /// The WAL size, in pages (40 MiB at 4 KiB), past which a commit checkpoints itself.
    static let walPagesBeforeCommitCheckpoints: Int32 = 10_000

    /// The WAL size, in pages, past which the checkpointer copies back every commit's pages as they
    /// come, so that the commit that checkpoints itself has little to copy.
    static let walPagesBeforeCatchingUp: Int32 = 8_000

    /// Copies what the WAL holds back into the database as far as no reader needs it, without
    /// waiting for a lock (a passive checkpoint); answers how many of the WAL's pages are now in
    /// the database, or `nil` when the checkpoint failed.
    func checkpoint() -> Int32? {
        var logPages: Int32 = 0
        var copiedPages: Int32 = 0
        let status = sqlite3_wal_checkpoint_v2(
            handle, nil, SQLITE_CHECKPOINT_PASSIVE, &logPages, &copiedPages)
        return status == SQLITE_OK ? copiedPages : nil
    }

    private var isClosed = false
    private var busyTimeoutMilliseconds: Int32 = 0

    /// How long the next statements wait for another writer's lock before failing with `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) {
        guard milliseconds != busyTimeoutMilliseconds else { return }
        sqlite3_busy_timeout(handle, milliseconds)
        busyTimeoutMilliseconds = milliseconds
    }

    deinit {
        close()
    }

    /// Finalizes the prepared statements and closes the database; later use is a programming error.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        for statement in statements.values {
            sqlite3_finalize(statement)
        }
        statements = [:]
        statementsByAddress = [:]
        sqlite3_close_v2(handle)
        parameterBytes.deallocate()
        parameterBytes = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    }

    /// Sets how hard the commits that follow wait for the disk (`PRAGMA synchronous`).
    ///
    /// Outside a transaction only, as SQLite refuses to change it inside one.
    func setSynchronous(_ durability: SQLiteStore.Durability) throws(StoreError) {
        try execute("PRAGMA synchronous=\(durability == .full ? "FULL" : "NORMAL")")
    }

    /// Runs SQL that takes no parameters, stepping through any rows it returns.
    func execute(_ sql: String) throws(StoreError) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw error("prepare")
        }
        defer { sqlite3_finalize(statement) }
        var status = sqlite3_step(statement)
        while status == SQLITE_ROW { status = sqlite3_step(statement) }
        guard status == SQLITE_DONE else { throw error("execute") }
    }

    /// Runs a prepared statement with parameters and returns its rows.
    @discardableResult
    func query(_ sql: String, _ parameters: [SQLiteValue] = []) throws(StoreError) -> [[SQLiteValue]] {
        try running(sql, parameters) { (statement: OpaquePointer) throws(StoreError) in
            let row = SQLiteRow(statement: statement)
            var rows: [[SQLiteValue]] = []
            while true {
                let status = sqlite3_step(statement)
                if status == SQLITE_DONE { break }
                guard status == SQLITE_ROW else { throw error("step") }
                rows.append((0..<row.columnCount).map(row.value))
            }
            return rows
        }
    }

    /// Runs a prepared statement and reads its first row, if any, with `read`, without building rows of values.
    func queryRow<Row>(
        _ sql: String, _ parameters: [SQLiteValue], read: (SQLiteRow) throws(StoreError) -> Row
    ) throws(StoreError) -> Row? {
        try running(sql, parameters) { (statement: OpaquePointer) throws(StoreError) -> Row? in
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return nil }
            guard status == SQLITE_ROW else { throw error("step") }
            return try read(SQLiteRow(statement: statement))
        }
    }

    /// Runs a prepared statement and reads each of its rows with `read`.
    func queryRows<Row>(
        _ sql: String, _ parameters: [SQLiteValue], read: (SQLiteRow) throws(StoreError) -> Row
    ) throws(StoreError) -> [Row] {
        try running(sql, parameters) { (statement: OpaquePointer) throws(StoreError) -> [Row] in
            var rows: [Row] = []
            while true {
                let status = sqlite3_step(statement)
                if status == SQLITE_DONE { return rows }
                guard status == SQLITE_ROW else { throw error("step") }
                rows.append(try read(SQLiteRow(statement: statement)))
            }
        }
    }

    /// The first column of the first row as an integer, or `nil` when there is no row or it is not one.
    func queryInteger(_ sql: String, _ parameters: [SQLiteValue]) throws(StoreError) -> Int64? {
        try queryRow(sql, parameters) { (row: SQLiteRow) throws(StoreError) in row.integer(0) } ?? nil
    }

    /// Runs `body` on the prepared statement for `sql` with its parameters bound, then resets it and
    /// clears the bindings (the parameters' buffer is reused by the next query).
    private func running<Result>(
        _ sql: String, _ parameters: [SQLiteValue], _ body: (OpaquePointer) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(parameters, in: statement)
        return try body(statement)
    }

    /// Rows changed by the last statement.
    var changes: Int {
        Int(sqlite3_changes(handle))
    }

    /// Whether a group transaction (``beginGroup()``) is open: calls inside it run in savepoints.
    private var inGroup = false

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws.
    ///
    /// Inside a group the group's transaction and the call's savepoint already hold `body` to all
    /// or nothing, so it just runs.
    func immediateTransaction<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        if inGroup { return try body() }
        try query("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try query("COMMIT")
            return result
        } catch {
            _ = try? query("ROLLBACK")
            throw error
        }
    }

    /// Opens the write transaction that several calls share.
    func beginGroup() throws(StoreError) {
        try query("BEGIN IMMEDIATE")
        inGroup = true
    }

    /// Commits the group's transaction; on failure rolls it back and rethrows.
    func commitGroup() throws(StoreError) {
        inGroup = false
        do {
            try query("COMMIT")
        } catch {
            _ = try? query("ROLLBACK")
            throw error
        }
    }

    /// Rolls the group's transaction back, if SQLite has not already, keeping none of its writes.
    func abandonGroup() {
        inGroup = false
        if isInTransaction { _ = try? query("ROLLBACK") }
    }

    /// Marks where one call of a group begins.
    func openSavepoint() throws(StoreError) {
        try query("SAVEPOINT otp_call")
    }

    /// Ends the call's savepoint, first undoing its writes when it failed.
    func closeSavepoint(rollingBack: Bool) {
        if rollingBack, isInTransaction { _ = try? query("ROLLBACK TO otp_call") }
        if isInTransaction { _ = try? query("RELEASE otp_call") }
    }

    /// Whether a transaction is open; SQLite rolls one back by itself after some errors.
    var isInTransaction: Bool {
        let open = sqlite3_get_autocommit(handle) == 0
        if !open { inGroup = false }
        return open
    }

    /// The prepared statement for `sql`, made once per connection.
    ///
    /// The hot statements are `static let` texts whose UTF-8 stays at one address: they are found
    /// by that address and confirmed against the statement's own text, which costs a pointer's hash
    /// and a comparison instead of hashing a few hundred bytes of SQL per call (six statements a
    /// check). Any other text, or one whose address now holds something else, is found by its text.
    private func prepared(_ sql: String) throws(StoreError) -> OpaquePointer {
        let address =
            sql.utf8.count > 15 ? sql.utf8.withContiguousStorageIfAvailable { $0.baseAddress } ?? nil : nil
        if let address, let statement = statementsByAddress[UnsafeRawPointer(address)],
            Self.holds(statement, text: address, count: sql.utf8.count)
        {
            return statement
        }
        let statement = try preparedByText(sql)
        if let address {
            // Texts built per call leave addresses behind that nothing will ask for again.
            if statementsByAddress.count >= Self.addressLimit {
                statementsByAddress.removeAll(keepingCapacity: true)
            }
            statementsByAddress[UnsafeRawPointer(address)] = statement
        }
        return statement
    }

    /// How many statement addresses are remembered at most.
    private static let addressLimit = 256

    /// Whether a prepared statement was made from exactly these bytes.
    private static func holds(_ statement: OpaquePointer, text: UnsafePointer<UInt8>, count: Int) -> Bool {
        guard let own = sqlite3_sql(statement) else { return false }
        return memcmp(own, text, count) == 0 && own[count] == 0
    }

    private func preparedByText(_ sql: String) throws(StoreError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error("prepare") }
        statements[sql] = statement
        return statement
    }

    /// Binds the parameters in order: numbers and nulls by value, text and blobs from a copy in
    /// ``parameterBytes``, which stays put until the query clears its bindings.
    private func bind(_ parameters: [SQLiteValue], in statement: OpaquePointer) throws(StoreError) {
        var needed = 0
        for parameter in parameters {
            switch parameter {
            case .text(let text): needed += text.utf8.count
            case .blob(let bytes): needed += bytes.count
            case .null, .integer: break
            }
        }
        if needed > parameterBytes.count {
            parameterBytes.deallocate()
            parameterBytes = .allocate(byteCount: max(needed, parameterBytes.count * 2), alignment: 8)
        }
        guard let base = parameterBytes.baseAddress else { throw error("bind") }
        var offset = 0
        for (position, parameter) in parameters.enumerated() {
            let index = Int32(position + 1)
            let status: Int32
            switch parameter {
            case .null:
                status = sqlite3_bind_null(statement, index)
            case .integer(let number):
                status = sqlite3_bind_int64(statement, index, number)
            case .text(let text):
                let start = offset
                var text = text
                text.withUTF8 { utf8 in
                    UnsafeMutableRawBufferPointer(rebasing: parameterBytes[start..<start + utf8.count])
                        .copyMemory(from: UnsafeRawBufferPointer(utf8))
                    offset += utf8.count
                }
                // An empty text is still text, not NULL: SQLite needs a pointer for it.
                let pointer = (base + start).assumingMemoryBound(to: CChar.self)
                status = otp_sqlite3_bind_text_static(statement, index, pointer, Int32(offset - start))
            case .blob(let bytes):
                if bytes.isEmpty {
                    status = sqlite3_bind_zeroblob(statement, index, 0)
                } else {
                    let start = offset
                    bytes.withUnsafeBytes { source in
                        UnsafeMutableRawBufferPointer(rebasing: parameterBytes[start..<start + source.count])
                            .copyMemory(from: source)
                    }
                    offset += bytes.count
                    status = otp_sqlite3_bind_blob_static(
                        statement, index, base + start, Int32(bytes.count))
                }
            }
            guard status == SQLITE_OK else { throw error("bind") }
        }
    }

    private func error(_ step: String) -> StoreError {
        StoreError("sqlite \(step): \(Self.message(of: handle))")
    }

    private static func message(of handle: OpaquePointer) -> String {
        sqlite3_errmsg(handle).map { String(cString: $0) } ?? "unknown error"
    }
}

/// A value bound to or read from SQLite.
enum SQLiteValue: Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])

    var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    var blob: [UInt8]? {
        if case .blob(let value) = self { return value }
        return nil
    }
}

/// The row a statement stands on, read column by column in place (valid only inside
/// ``SQLiteConnection/queryRow(_:_:read:)``'s `read`).
struct SQLiteRow {
    fileprivate let statement: OpaquePointer

    var columnCount: Int32 { sqlite3_column_count(statement) }

    /// The column as an integer, or `nil` when it holds something else.
    func integer(_ index: Int32) -> Int64? {
        sqlite3_column_type(statement, index) == SQLITE_INTEGER ? sqlite3_column_int64(statement, index) : nil
    }

    /// The column as text, or `nil` when it holds something else.
    func text(_ index: Int32) -> String? {
        sqlite3_column_type(statement, index) == SQLITE_TEXT ? textValue(index) : nil
    }

    /// The column as bytes, or `nil` when it holds something else.
    func blob(_ index: Int32) -> [UInt8]? {
        sqlite3_column_type(statement, index) == SQLITE_BLOB ? blobValue(index) : nil
    }

    /// The column as whatever it holds; a real number reads as its text.
    func value(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer(sqlite3_column_int64(statement, index))
        case SQLITE_BLOB: .blob(blobValue(index))
        default: .text(textValue(index))
        }
    }

    private func textValue(_ index: Int32) -> String {
        let count = Int(sqlite3_column_bytes(statement, index))
        guard let pointer = sqlite3_column_text(statement, index) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    private func blobValue(_ index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, index))
        guard count > 0, let pointer = sqlite3_column_blob(statement, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
