import CLibPQ
import Foundation
import OTPEngine

#if canImport(Glibc)
    import Glibc
#endif

/// One libpq connection, used by one lane of the pool at a time, with every wait bounded.
///
/// The connection is made lazily and made again after it broke: a call that finds it gone
/// connects first, within the call's own deadline. Statements go out with `PQsendQueryParams`
/// and the answer is awaited with `poll`, so a server that stopped answering costs a call its
/// deadline and no more; the connection is then dropped, since a statement may still be in flight.
/// Owned by exactly one lane (its serial queue): that is what makes it `Sendable`.
final class PostgresConnection: @unchecked Sendable {
    /// How to reach the server, and the limits of each session.
    struct Settings: Sendable {
        /// A libpq conninfo string or `postgres://` URL.
        var conninfo: String
        /// A password given by the caller, else `nil` (libpq then reads `PGPASSWORD` or `~/.pgpass`).
        var password: String?
        /// The schema the tables live in, set as the session's `search_path`; `nil` keeps the server's.
        var schema: String?
        /// The longest a call may take; also the session's `statement_timeout` and `lock_timeout`.
        var deadline: Duration
    }

    let settings: Settings
    private var handle: OpaquePointer?
    /// The statements prepared in this session, by their text; forgotten when the session closes.
    private var prepared: [String: String] = [:]
    /// The number in the next prepared statement's name.
    private var nextStatementNumber = 0
    /// When the running call must be done by; set by the lane before each call.
    var due: ContinuousClock.Instant = .now

    /// Creates a connection that connects on first use.
    init(settings: Settings) {
        self.settings = settings
    }

    deinit { close() }

    /// Whether a session is open and was last seen healthy.
    var isOpen: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Closes the session, if any; the next call connects again.
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        prepared.removeAll()
    }

    /// Connects when there is no healthy session.
    ///
    /// An idle session that has something to read was ended by the server (a restart, an
    /// administrator's command): it is closed and made again before the call uses it.
    func open() throws(StoreError) {
        if isOpen, !hasUnreadInput { return }
        close()
        try connect()
    }

    /// Whether the socket of an idle session is readable now: the server ended the session.
    private var hasUnreadInput: Bool {
        guard let handle else { return false }
        var entry = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) != 0
    }

    /// Milliseconds left before ``due``, at least 0.
    private var millisecondsLeft: Int32 {
        let left = ContinuousClock.now.duration(to: due)
        guard left > .zero else { return 0 }
        return Int32(clamping: StoreTime.milliseconds(left) + 1)
    }

    private func connect() throws(StoreError) {
        // Later keywords override earlier ones: the caller's string may set its own connect_timeout
        // and application_name; the password given to the store wins over one in the string.
        let seconds = max(2, Int(StoreTime.milliseconds(settings.deadline) + 999) / 1000)
        var pairs: [(String, String)] = [
            ("application_name", "otp"), ("connect_timeout", String(seconds)), ("dbname", settings.conninfo),
        ]
        if let password = settings.password { pairs.append(("password", password)) }
        let keywords = pairs.map { strdup($0.0) }
        let values = pairs.map { strdup($0.1) }
        defer {
            for pointer in keywords + values { free(pointer) }
        }
        let started: OpaquePointer? =
            (keywords.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { names in
                (values.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { texts in
                    PQconnectStartParams(names.baseAddress, texts.baseAddress, 1)
                }
            }
        guard let started else { throw StoreError("postgres: out of memory") }
        handle = started
        guard PQstatus(started) != CONNECTION_BAD else { throw failure("cannot connect") }
        var state = PGRES_POLLING_WRITING
        while state != PGRES_POLLING_OK {
            if state == PGRES_POLLING_FAILED { throw failure("cannot connect") }
            guard try wait(writing: state == PGRES_POLLING_WRITING) else {
                close()
                throw StoreError("postgres: timed out connecting")
            }
            state = PQconnectPoll(started)
        }
        // Bound every statement and lock wait on the server too, and choose the schema.
        let limit = String(StoreTime.milliseconds(settings.deadline))
        _ = try query(
            "SELECT set_config('statement_timeout', $1, false), set_config('lock_timeout', $1, false), "
                + "set_config('idle_in_transaction_session_timeout', $2, false)",
            [.text(limit), .text(String(StoreTime.milliseconds(settings.deadline) * 5))])
        if let schema = settings.schema {
            _ = try query("SELECT set_config('search_path', $1, false)", [.text(Self.quoted(schema))])
        }
    }

    /// Waits until the socket is ready or the call's deadline passes; `false` on the deadline.
    private func wait(writing: Bool) throws(StoreError) -> Bool {
        guard let handle else { throw StoreError("postgres: not connected") }
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw failure("lost the connection") }
        var entry = pollfd(fd: socket, events: Int16(writing ? POLLOUT : POLLIN), revents: 0)
        while true {
            let ready = poll(&entry, 1, millisecondsLeft)
            if ready > 0 { return true }
            if ready == 0 { return false }
            if errno != EINTR { throw StoreError("postgres: poll failed (errno \(errno))") }
        }
    }

    /// Runs one statement with its parameters (`$1`, `$2`, …) and answers its rows in binary format.
    ///
    /// Throws `StoreError` with the server's message when the statement fails; the connection is
    /// closed when it broke or the deadline passed.
    @discardableResult
    func query(_ sql: String, _ parameters: [PostgresValue] = []) throws(StoreError) -> PostgresResult {
        guard let handle else { throw StoreError("postgres: not connected") }
        let sent = Self.withEncoded(parameters) { values, lengths, formats in
            PQsendQueryParams(handle, sql, Int32(parameters.count), nil, values, lengths, formats, 1)
        }
        guard sent == 1 else { throw broken("cannot send a statement") }
        guard let last = try nextResult() else { throw broken("no answer") }
        defer { PQclear(last) }
        return try Self.answer(last, handle: handle, connection: self)
    }

    /// Runs statements in one round trip (libpq's pipeline mode) and answers their results in order.
    ///
    /// Each statement is prepared once per session, in the same round trip as its first use, so
    /// the server plans it once. When a statement fails, the ones after it are not run and the
    /// first failure is thrown; the caller's transaction, if any, is then aborted and must be
    /// rolled back.
    func pipeline(_ statements: [PostgresStatement]) throws(StoreError) -> [PostgresResult] {
        guard let handle else { throw StoreError("postgres: not connected") }
        guard PQenterPipelineMode(handle) == 1 else { throw broken("cannot enter pipeline mode") }
        // What each result read back belongs to: a statement's preparation (with its name) or its run.
        var expected: [(prepares: String?, sql: String)] = []
        for statement in statements {
            let name: String
            if let known = prepared[statement.sql] {
                name = known
            } else {
                name = "otp_\(nextStatementNumber)"
                nextStatementNumber += 1
                guard PQsendPrepare(handle, name, statement.sql, Int32(statement.parameters.count), nil) == 1
                else { throw broken("cannot prepare a statement") }
                expected.append((name, statement.sql))
            }
            let sent = Self.withEncoded(statement.parameters) { values, lengths, formats in
                PQsendQueryPrepared(
                    handle, name, Int32(statement.parameters.count), values, lengths, formats, 1)
            }
            guard sent == 1 else { throw broken("cannot send a statement") }
            expected.append((nil, statement.sql))
        }
        guard PQpipelineSync(handle) == 1 else { throw broken("cannot send a pipeline") }
        var results: [PostgresResult] = []
        var failure: StoreError?
        for entry in expected {
            guard let result = try nextResult() else { throw broken("no answer") }
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            if status == PGRES_PIPELINE_ABORTED { continue }
            do throws(StoreError) {
                let answer = try Self.answer(result, handle: handle, connection: self)
                if let name = entry.prepares {
                    prepared[entry.sql] = name
                } else {
                    results.append(answer)
                }
            } catch {
                if failure == nil { failure = error }
            }
        }
        // The sync point ends the pipeline; the connection then leaves pipeline mode.
        try waitUntilReadable()
        guard let sync = PQgetResult(handle) else { throw broken("no end of pipeline") }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        guard synced, PQexitPipelineMode(handle) == 1 else { throw broken("the pipeline did not end") }
        if let failure { throw failure }
        return results
    }

    /// Reads one statement's results and answers its last (`nil` when it has none).
    private func nextResult() throws(StoreError) -> OpaquePointer? {
        guard let handle else { throw StoreError("postgres: not connected") }
        var last: OpaquePointer?
        while true {
            do throws(StoreError) {
                try waitUntilReadable()
            } catch {
                if let last { PQclear(last) }
                throw error
            }
            guard let result = PQgetResult(handle) else { break }
            if let last { PQclear(last) }
            last = result
            // In pipeline mode a sync point is its own answer, with no NULL after it.
            if PQresultStatus(result) == PGRES_PIPELINE_SYNC { break }
        }
        return last
    }

    /// Waits while libpq has no whole result to hand over, within the call's deadline.
    private func waitUntilReadable() throws(StoreError) {
        guard let handle else { throw StoreError("postgres: not connected") }
        while PQisBusy(handle) == 1 {
            guard try wait(writing: false) else {
                close()
                throw StoreError("postgres: timed out waiting for the server")
            }
            guard PQconsumeInput(handle) == 1 else { throw broken("lost the connection") }
        }
    }

    /// A finished result as rows, or its failure as a `StoreError` (closing a broken connection).
    private static func answer(
        _ result: OpaquePointer, handle: OpaquePointer, connection: PostgresConnection
    ) throws(StoreError) -> PostgresResult {
        let status = PQresultStatus(result)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            let message =
                Self.message(of: result) ?? Self.text(PQerrorMessage(handle)) ?? "the statement failed"
            if PQstatus(handle) != CONNECTION_OK { connection.close() }
            throw StoreError("postgres: \(message)")
        }
        var rows: [PostgresRow] = []
        let rowCount = PQntuples(result)
        let columnCount = PQnfields(result)
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var cells: [[UInt8]?] = []
            cells.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                if PQgetisnull(result, row, column) == 1 {
                    cells.append(nil)
                } else {
                    let length = Int(PQgetlength(result, row, column))
                    let start = UnsafeRawPointer(PQgetvalue(result, row, column))
                    cells.append(start.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? [])
                }
            }
            rows.append(PostgresRow(cells: cells))
        }
        let affected = Self.text(PQcmdTuples(result)).flatMap { Int($0) } ?? 0
        return PostgresResult(rows: rows, affected: affected)
    }

    /// Calls `body` with the parameters laid out as libpq reads them: values, lengths and formats.
    private static func withEncoded(
        _ parameters: [PostgresValue],
        _ body: ([UnsafePointer<CChar>?], [Int32], [Int32]) -> Int32
    ) -> Int32 {
        // One buffer holds every parameter; each ends with a NUL, as libpq reads text-format values
        // (the integers) with strlen.
        var buffer: [UInt8] = []
        var spans: [(offset: Int, length: Int)?] = []
        var formats: [Int32] = []
        for parameter in parameters {
            let start = buffer.count
            switch parameter {
            case .null:
                spans.append(nil)
                formats.append(0)
                continue
            case .text(let text):
                // Binary format (the bytes and a length): a NUL is refused by the server, not cut.
                buffer += Array(text.utf8)
                formats.append(1)
            case .integer(let number):
                buffer += Array(String(number).utf8)
                formats.append(0)
            case .bytes(let bytes):
                buffer += bytes
                formats.append(1)
            }
            spans.append((start, buffer.count - start))
            buffer.append(0)
        }
        return buffer.withUnsafeBufferPointer { bytes -> Int32 in
            let base = UnsafeRawPointer(bytes.baseAddress)
            let pointers: [UnsafePointer<CChar>?] = spans.map { span in
                span.flatMap { base?.advanced(by: $0.offset).assumingMemoryBound(to: CChar.self) }
            }
            return body(pointers, spans.map { Int32($0?.length ?? 0) }, formats)
        }
    }

    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws.
    ///
    /// A connection found broken on `BEGIN` (the server restarted since the last call) is made
    /// again once, so the first call after an outage does not fail for the old session.
    func transaction<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        do {
            try open()
            try query("BEGIN")
        } catch {
            guard !isOpen, ContinuousClock.now < due else { throw error }
            try open()
            try query("BEGIN")
        }
        let result: Result
        do {
            result = try body()
        } catch {
            if isOpen { _ = try? query("ROLLBACK") }
            throw error
        }
        try query("COMMIT")
        return result
    }

    /// Runs one transaction in two round trips: `BEGIN` with the statements that lock and read,
    /// then the statements `decide` answers for what they read, with `COMMIT`.
    ///
    /// `decide` sees the reads' results in order and answers the writes and the call's result;
    /// it runs between the round trips, so the rows the reads locked stay locked while it judges.
    /// A connection found broken on the first round trip is made again once, as in
    /// ``transaction(_:)``; a statement that fails rolls the transaction back.
    func transaction<Result>(
        reading reads: [PostgresStatement],
        then decide: ([PostgresResult]) throws(StoreError) -> (writes: [PostgresStatement], result: Result)
    ) throws(StoreError) -> Result {
        let first = [PostgresStatement("BEGIN")] + reads
        var read: [PostgresResult]
        do {
            try open()
            read = try pipeline(first)
        } catch {
            if isOpen { _ = try? query("ROLLBACK") }
            guard !isOpen, ContinuousClock.now < due else { throw error }
            try open()
            do {
                read = try pipeline(first)
            } catch {
                if isOpen { _ = try? query("ROLLBACK") }
                throw error
            }
        }
        do {
            read.removeFirst()
            let (writes, result) = try decide(read)
            _ = try pipeline(writes + [PostgresStatement("COMMIT")])
            return result
        } catch {
            if isOpen { _ = try? query("ROLLBACK") }
            throw error
        }
    }

    /// The error for a broken connection, which is closed.
    private func broken(_ what: String) -> StoreError {
        let error = failure(what)
        close()
        return error
    }

    /// A `StoreError` with libpq's message for the connection.
    private func failure(_ what: String) -> StoreError {
        let message = handle.flatMap { Self.text(PQerrorMessage($0)) } ?? ""
        return StoreError(message.isEmpty ? "postgres: \(what)" : "postgres: \(what): \(message)")
    }

    /// The server's primary message for a failed result, without its SQLSTATE.
    private static func message(of result: OpaquePointer) -> String? {
        text(PQresultErrorField(result, Int32(UInt8(ascii: "M"))))
    }

    /// A C string, trimmed; `nil` when empty.
    private static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        let text = String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// A schema name as a quoted identifier (the name is checked when the store is made).
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
