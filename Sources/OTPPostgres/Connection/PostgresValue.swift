import Foundation

/// A statement parameter: sent apart from the statement's text, never spliced into it.
enum PostgresValue: Sendable, Equatable {
    /// Text, sent in text format.
    case text(String)
    /// An integer, sent as its decimal text.
    case integer(Int64)
    /// Bytes (a `bytea`), sent in binary format.
    case bytes([UInt8])
    /// SQL `NULL`.
    case null

    /// A text parameter, or `NULL` for `nil`.
    static func text(_ value: String?) -> PostgresValue { value.map { .text($0) } ?? .null }

    /// An integer parameter, or `NULL` for `nil`.
    static func integer(_ value: Int64?) -> PostgresValue { value.map { .integer($0) } ?? .null }
}

/// One row of a result, its cells in PostgreSQL's binary format (`nil` for `NULL`).
struct PostgresRow: Sendable {
    /// The cells in column order.
    let cells: [[UInt8]?]

    /// The number of columns.
    var count: Int { cells.count }

    /// A `text` cell, or `nil` when it is `NULL` or absent.
    func text(_ column: Int) -> String? {
        guard column < cells.count, let bytes = cells[column] else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An integer cell (`smallint`, `integer` or `bigint`, big-endian), or `nil`.
    func integer(_ column: Int) -> Int64? {
        guard column < cells.count, let bytes = cells[column], [2, 4, 8].contains(bytes.count) else {
            return nil
        }
        var value: UInt64 = 0
        for byte in bytes { value = value << 8 | UInt64(byte) }
        // Sign-extend the narrower widths.
        let shift = UInt64(64 - bytes.count * 8)
        return Int64(bitPattern: value << shift) >> Int64(shift)
    }

    /// A `bytea` cell, or `nil` when it is `NULL`.
    func bytes(_ column: Int) -> [UInt8]? {
        guard column < cells.count else { return nil }
        return cells[column]
    }
}

/// What one statement answered: its rows, and how many rows it changed.
struct PostgresResult: Sendable {
    /// The rows returned, none for a statement that returns none.
    var rows: [PostgresRow]
    /// The rows inserted, updated or deleted (0 for other statements).
    var affected: Int
}

/// A statement and its parameters, for ``PostgresConnection/pipeline(_:)``.
struct PostgresStatement: Sendable {
    /// The statement's text, with `$1`, `$2`, … for its parameters.
    let sql: String
    /// The parameters, in order.
    let parameters: [PostgresValue]

    init(_ sql: String, _ parameters: [PostgresValue] = []) {
        self.sql = sql
        self.parameters = parameters
    }
}
