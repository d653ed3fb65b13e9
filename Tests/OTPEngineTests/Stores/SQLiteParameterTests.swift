import Foundation
import OTPEngine
import OTPTestSupport
import Testing

@testable import OTPSQLite

/// Query parameters are copied into one buffer of the connection's and bound in place; what a
/// query reads back must be what it was given, whatever the sizes and in whatever order.
@Suite struct SQLiteParameterTests {
    /// Runs `body` on the store's connection and returns what it returns.
    private static func onConnection<Value: Sendable>(
        _ store: SQLiteStore, _ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> Value
    ) async throws -> Value {
        let answers = GroupedCallsTests.Answers<Result<Value, StoreError>>()
        store.submit(body) { answers.put(0, $0) }
        return try #require(await answers.all(1)[0]).get()
    }

    @Test("text and blobs of every size round-trip; empty text stays text and an empty blob a blob")
    func roundTrip() async throws {
        let store = try SQLiteStore(path: temporaryDirectory() + "/parameters.sqlite3")
        let long = String(repeating: "vérification 🔑 ", count: 200)
        let bytes = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let rows = try await Self.onConnection(store) { db throws(StoreError) in
            try db.query("CREATE TABLE parameters (n INTEGER, a, b, c, d, e)")
            let cases: [[SQLiteValue]] = [
                [.integer(1), .text(""), .blob([]), .null, .integer(-5), .text("x")],
                [.integer(2), .text(long), .blob(bytes), .text("short"), .blob([0, 1, 0]), .text(long)],
                [.integer(3), .text("a"), .blob([255]), .text(""), .null, .blob(bytes)],
            ]
            for values in cases {
                try db.query("INSERT INTO parameters VALUES (?, ?, ?, ?, ?, ?)", values)
            }
            return try db.query(
                "SELECT a, typeof(a), b, typeof(b), c, typeof(c), d, e FROM parameters ORDER BY n")
        }
        #expect(rows.count == 3)
        #expect(
            rows[0] == [
                .text(""), .text("text"), .blob([]), .text("blob"), .null, .text("null"), .integer(-5),
                .text("x"),
            ])
        #expect(
            rows[1] == [
                .text(long), .text("text"), .blob(bytes), .text("blob"), .text("short"), .text("text"),
                .blob([0, 1, 0]), .text(long),
            ])
        #expect(
            rows[2] == [
                .text("a"), .text("text"), .blob([255]), .text("blob"), .text(""), .text("text"), .null,
                .blob(bytes),
            ])
        await store.shutdown()
    }

    @Test("queries of growing and shrinking sizes, one after another, each read what they wrote")
    func sizesInTurn() async throws {
        let store = try SQLiteStore(path: temporaryDirectory() + "/sizes.sqlite3")
        let sizes = [0, 1, 511, 512, 513, 5000, 3, 20000, 0, 700]
        let read = try await Self.onConnection(store) { db throws(StoreError) in
            try db.query("CREATE TABLE sizes (n INTEGER PRIMARY KEY, t TEXT, b BLOB)")
            var read: [[SQLiteValue]] = []
            for (n, size) in sizes.enumerated() {
                let text = String(repeating: Character(UnicodeScalar(UInt8(97 + n))), count: size)
                let blob = [UInt8](repeating: UInt8(n), count: size)
                try db.query(
                    "INSERT INTO sizes VALUES (?, ?, ?)", [.integer(Int64(n)), .text(text), .blob(blob)])
                read += try db.query(
                    "SELECT t, b FROM sizes WHERE n = ? AND t = ?", [.integer(Int64(n)), .text(text)])
            }
            return read
        }
        #expect(read.count == sizes.count, "every row found by its own text")
        for (n, size) in sizes.enumerated() where n < read.count {
            let text = String(repeating: Character(UnicodeScalar(UInt8(97 + n))), count: size)
            #expect(
                read[n] == [.text(text), .blob([UInt8](repeating: UInt8(n), count: size))], "size \(size)")
        }
        await store.shutdown()
    }

    @Test(
        "statements made from texts built one after another, at addresses used again, each run their own text"
    )
    func statementsByAddress() async throws {
        let store = try SQLiteStore(path: temporaryDirectory() + "/statements.sqlite3")
        let mismatches = try await Self.onConnection(store) { db throws(StoreError) -> [Int] in
            var mismatches: [Int] = []
            // Each text made twice: the connection keeps the first copy and only remembers where the
            // second lived. The second is freed, and the allocator hands its storage to the next
            // text of the same length, so an address found must still be confirmed against the text.
            for n in 0..<600 {
                for _ in 0..<2 {
                    let sql = "SELECT " + String(format: "%05d", n) + " AS value_of_this_statement"
                    if try db.queryInteger(sql, []) != Int64(n) { mismatches.append(n) }
                }
            }
            return mismatches
        }
        #expect(mismatches.isEmpty, "statements answered another text's value: \(mismatches.prefix(5))")
        await store.shutdown()
    }

    @Test("a row is read in place: no row reads nil, a column of another type reads nil, values as stored")
    func rowsInPlace() async throws {
        let store = try SQLiteStore(path: temporaryDirectory() + "/rows.sqlite3")
        let (missing, mixed, typed) = try await Self.onConnection(store) {
            db throws(StoreError) -> (Int64?, Int64?, [String?]) in
            try db.query("CREATE TABLE kinds (k TEXT PRIMARY KEY, n, t, b)")
            try db.query("INSERT INTO kinds VALUES ('a', 7, 'seven', x'0700')")
            try db.query("INSERT INTO kinds VALUES ('b', 'not a number', NULL, NULL)")
            let missing = try db.queryInteger("SELECT n FROM kinds WHERE k = ?", [.text("none")])
            let mixed = try db.queryInteger("SELECT n FROM kinds WHERE k = ?", [.text("b")])
            let typed = try db.queryRow("SELECT n, t, b FROM kinds WHERE k = ?", [.text("a")]) {
                (row: SQLiteRow) throws(StoreError) -> [String?] in
                [
                    row.integer(0).map { "\($0)" }, row.text(1), row.blob(2).map { "\($0)" }, row.text(0),
                    row.blob(1).map { "\($0)" },
                ]
            }
            return (missing, mixed, typed ?? [])
        }
        #expect(missing == nil)
        #expect(mixed == nil)
        #expect(typed == ["7", "seven", "[7, 0]", nil, nil])
        await store.shutdown()
    }
}
