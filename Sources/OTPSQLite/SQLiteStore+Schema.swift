import Foundation
import OTPEngine

extension SQLiteStore {
    /// The schema's steps, oldest first; the database keeps its version in `PRAGMA user_version`.
    ///
    /// Each step may find its change already made: databases made before the schema had a version
    /// (version 0) hold some of the later columns, and every step only adds what is missing.
    public static let migrations: [SchemaMigration] = steps.map(\.migration)

    /// The version this program's schema has.
    public static var schemaVersion: Int { migrations.last?.version ?? 0 }

    private struct Step: Sendable {
        let migration: SchemaMigration
        let apply: @Sendable (SQLiteConnection) throws(StoreError) -> Void
    }

    private static let steps: [Step] = [
        Step(
            migration: SchemaMigration(
                version: 1,
                summary:
                    "tables for verifications, idempotency keys, rate counters, events, health and factors"),
            apply: createTables),
        Step(
            migration: SchemaMigration(version: 2, summary: "a verification's messages have a language"),
            apply: { db throws(StoreError) in
                try addColumns(db, table: "otp_verifications", [("locale", "TEXT")])
            }),
        Step(
            migration: SchemaMigration(
                version: 3,
                summary: "a verification carries its caller's ref and a transaction; events the ref"),
            apply: { db throws(StoreError) in
                try addColumns(db, table: "otp_verifications", [("ref", "TEXT"), ("txn", "TEXT")])
                try addColumns(db, table: "otp_events", [("ref", "TEXT")])
            }),
        Step(
            migration: SchemaMigration(
                version: 4, summary: "an authenticator's lock lifts by itself; used recovery codes are kept"),
            apply: { db throws(StoreError) in
                try addColumns(
                    db, table: "otp_totp_factors",
                    [
                        ("locked_until", "INTEGER"), ("locks", "INTEGER NOT NULL DEFAULT 0"),
                        ("used_recovery", "BLOB"),
                    ])
            }),
        Step(
            migration: SchemaMigration(
                version: 5, summary: "the SMS pumping guard's counters by time bucket, and its blocks"),
            apply: createFraudTables),
        Step(
            migration: SchemaMigration(
                version: 6,
                summary: "verifications are found by destination; each send's delivery attempt is kept"),
            apply: addDeliveries),
    ]

    /// The schema's version in the database at `path` and the steps this program would apply to it.
    ///
    /// - Throws: `StoreError` when there is no database at `path` or it cannot be read, and one
    ///   whose underlying error is a ``SchemaMismatch`` when the schema is newer than this program's.
    public static func pendingMigrations(
        path: String
    ) throws(StoreError) -> (
        version: Int, pending: [SchemaMigration]
    ) {
        let db = try openExisting(path)
        defer { db.close() }
        let found = try version(db)
        try refuseNewer(found)
        return (found, migrations.filter { $0.version > found })
    }

    /// Brings the schema of the database at `path` up to this program's, one transaction per step,
    /// and answers the steps applied (none when it was current).
    ///
    /// - Throws: `StoreError` when there is no database at `path`, a step fails (the steps before it
    ///   stay applied), or the schema is newer than this program's.
    public static func migrate(path: String) throws(StoreError) -> [SchemaMigration] {
        let db = try openExisting(path)
        defer { db.close() }
        try refuseNewer(try version(db))
        return try apply(db)
    }

    /// Gives a new database the current schema, and an older one the pending steps or a refusal.
    static func prepareSchema(_ db: SQLiteConnection, pending: PendingMigrations) throws(StoreError) {
        let found = try version(db)
        try refuseNewer(found)
        guard found < schemaVersion else { return }
        if pending == .refuse, try !isEmpty(db) {
            throw StoreError(
                "the SQLite database's schema is older than this program's",
                underlying: SchemaMismatch(
                    found: found, needed: schemaVersion, pending: migrations.filter { $0.version > found }))
        }
        _ = try apply(db)
    }

    /// Applies each step the database lacks in a transaction of its own, reading the version again
    /// inside it, so two processes opening one new database apply each step once.
    private static func apply(_ db: SQLiteConnection) throws(StoreError) -> [SchemaMigration] {
        var applied: [SchemaMigration] = []
        for step in steps {
            let ran = try db.immediateTransaction { () throws(StoreError) -> Bool in
                guard try version(db) < step.migration.version else { return false }
                try step.apply(db)
                try db.execute("PRAGMA user_version = \(step.migration.version)")
                return true
            }
            if ran { applied.append(step.migration) }
        }
        return applied
    }

    private static func openExisting(_ path: String) throws(StoreError) -> SQLiteConnection {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError("there is no SQLite database at \(path)")
        }
        return try SQLiteConnection(path: path, synchronous: .normal)
    }

    private static func version(_ db: SQLiteConnection) throws(StoreError) -> Int {
        Int(try db.queryInteger("PRAGMA user_version", []) ?? 0)
    }

    private static func refuseNewer(_ found: Int) throws(StoreError) {
        guard found > schemaVersion else { return }
        throw StoreError(
            "the SQLite database's schema is newer than this program's",
            underlying: SchemaMismatch(found: found, needed: schemaVersion, pending: []))
    }

    /// Whether the database holds none of the store's tables (a new file).
    private static func isEmpty(_ db: SQLiteConnection) throws(StoreError) -> Bool {
        try db.queryInteger(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name LIKE 'otp\\_%' ESCAPE '\\'", [])
            == 0
    }

    /// Adds the columns a table lacks; rows already there read as each column's default.
    private static func addColumns(
        _ db: SQLiteConnection, table: String, _ columns: [(name: String, type: String)]
    ) throws(StoreError) {
        let existing = try db.query("PRAGMA table_info(\(table))", [])
        for column in columns where !existing.contains(where: { $0.count > 1 && $0[1].text == column.name }) {
            try db.execute("ALTER TABLE \(table) ADD COLUMN \(column.name) \(column.type)")
        }
    }

    /// Version 5's tables: the pumping guard's counters (one row per key and time bucket) and blocks.
    private static func createFraudTables(_ db: SQLiteConnection) throws(StoreError) {
        try db.execute(
            "CREATE TABLE IF NOT EXISTS otp_fraud_counts (key TEXT NOT NULL, bucket INTEGER NOT NULL, "
                + "sends INTEGER NOT NULL DEFAULT 0, approvals INTEGER NOT NULL DEFAULT 0, "
                + "keep_until INTEGER NOT NULL, PRIMARY KEY (key, bucket)) WITHOUT ROWID")
        try db.execute("CREATE INDEX IF NOT EXISTS otp_fraud_counts_keep ON otp_fraud_counts (keep_until)")
        try db.execute(
            "CREATE TABLE IF NOT EXISTS otp_fraud_blocks (key TEXT PRIMARY KEY NOT NULL, until INTEGER NOT NULL, "
                + "repeats INTEGER NOT NULL, forget_at INTEGER NOT NULL) WITHOUT ROWID")
    }

    /// Version 6: an index by destination for the support search, and the delivery attempts.
    private static func addDeliveries(_ db: SQLiteConnection) throws(StoreError) {
        try db.execute(
            "CREATE INDEX IF NOT EXISTS otp_verifications_destination "
                + "ON otp_verifications (destination, created_at, id)")
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS otp_deliveries (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                verification_id TEXT NOT NULL,
                at INTEGER NOT NULL,
                channel TEXT NOT NULL,
                step TEXT NOT NULL,
                outcome TEXT NOT NULL,
                reason TEXT,
                message_id TEXT
            )
            """)
        try db.execute(
            "CREATE INDEX IF NOT EXISTS otp_deliveries_verification ON otp_deliveries (verification_id, seq)")
    }

    /// The first version's tables, as they were before any later step.
    private static func createTables(_ db: SQLiteConnection) throws(StoreError) {
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS otp_verifications (
                id TEXT PRIMARY KEY NOT NULL,
                channel TEXT NOT NULL,
                destination TEXT NOT NULL,
                code_length INTEGER NOT NULL,
                code_hash BLOB NOT NULL,
                state TEXT NOT NULL,
                attempts_left INTEGER NOT NULL,
                sends_used INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                resend_available_at INTEGER,
                purge_at INTEGER NOT NULL,
                lease_token TEXT,
                lease_until INTEGER
            ) WITHOUT ROWID
            """)
        try db.execute(
            "CREATE INDEX IF NOT EXISTS otp_verifications_purge_at ON otp_verifications (purge_at)")
        try db.execute(
            "CREATE INDEX IF NOT EXISTS otp_verifications_expires_at ON otp_verifications (expires_at)")
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS otp_idempotency (
                key TEXT PRIMARY KEY NOT NULL,
                verification_id TEXT NOT NULL,
                fingerprint TEXT NOT NULL,
                expires_at INTEGER NOT NULL
            ) WITHOUT ROWID
            """)
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS otp_rates (
                key TEXT PRIMARY KEY NOT NULL,
                arrival INTEGER NOT NULL
            ) WITHOUT ROWID
            """)
        // The lifecycle-event outbox: rows stay, delivered, until their verification is purged, so
        // an event's id is never written twice.
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS otp_events (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,
                verification_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                channel TEXT NOT NULL,
                masked_to TEXT NOT NULL,
                at INTEGER NOT NULL,
                failures INTEGER NOT NULL DEFAULT 0,
                due_at INTEGER NOT NULL,
                delivered INTEGER NOT NULL DEFAULT 0
            )
            """)
        try db.execute(
            "CREATE INDEX IF NOT EXISTS otp_events_waiting ON otp_events (delivered, verification_id, seq)")
        // One row, written by each health check to prove the database takes writes.
        try db.execute(
            "CREATE TABLE IF NOT EXISTS otp_health (id INTEGER PRIMARY KEY, checked_at INTEGER NOT NULL)")
        // Authenticator factors: the secret sealed, recovery codes as concatenated 32-byte HMACs.
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS otp_totp_factors (
                id TEXT PRIMARY KEY NOT NULL,
                account TEXT NOT NULL,
                issuer TEXT NOT NULL,
                sealed_secret BLOB NOT NULL,
                status TEXT NOT NULL,
                last_step INTEGER,
                failures INTEGER NOT NULL,
                recovery BLOB NOT NULL,
                created_at INTEGER NOT NULL
            ) WITHOUT ROWID
            """)
    }
}
