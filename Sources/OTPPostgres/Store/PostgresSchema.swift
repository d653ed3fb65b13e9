import Foundation
import OTPEngine

/// The store's tables, made in one transaction when missing, and the version they are at.
enum PostgresSchema {

    /// The statements that make the tables; each is harmless when its object exists.
    ///
    /// A new database gets every step at once; an older one is brought up by ``create(_:schema:)``.
    static let statements =
        versionOne + upgrades.flatMap(\.statements) + [
            "INSERT INTO otp_schema (version) SELECT \(PostgresStore.schemaVersion) "
                + "WHERE NOT EXISTS (SELECT 1 FROM otp_schema)"
        ]

    /// The tables of version 1, as they were before any later step.
    private static let versionOne = [
        "CREATE TABLE IF NOT EXISTS otp_schema (version integer NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS otp_verifications (
            id text PRIMARY KEY, channel text NOT NULL, destination text NOT NULL,
            code_length bigint NOT NULL, code_hash bytea NOT NULL, state text NOT NULL,
            attempts_left bigint NOT NULL, sends_used bigint NOT NULL, created_at bigint NOT NULL,
            expires_at bigint NOT NULL, resend_available_at bigint, purge_at bigint NOT NULL,
            lease_token text, lease_until bigint, locale text, ref text, txn text)
        WITH (fillfactor = 80)
        """,
        "CREATE INDEX IF NOT EXISTS otp_verifications_purge_at ON otp_verifications (purge_at)",
        """
        CREATE INDEX IF NOT EXISTS otp_verifications_pending_expiry ON otp_verifications (expires_at)
        WHERE state = 'pending'
        """,
        """
        -- The fingerprint separates its fields with NUL, which text cannot hold.
        CREATE TABLE IF NOT EXISTS otp_idempotency (
            key text PRIMARY KEY, verification_id text NOT NULL, fingerprint bytea NOT NULL,
            expires_at bigint NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS otp_idempotency_expires_at ON otp_idempotency (expires_at)",
        // Counters are updated in place at every request: free room on each page and no index on
        // the arrival keep the updates HOT (no new index entries, old versions pruned on the page).
        """
        CREATE TABLE IF NOT EXISTS otp_rates (key text PRIMARY KEY, arrival bigint NOT NULL)
        WITH (fillfactor = 70)
        """,
        // The lifecycle-event outbox: rows stay, delivered, until their verification is purged, so
        // an event's id is never written twice.
        """
        CREATE TABLE IF NOT EXISTS otp_events (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, id text NOT NULL UNIQUE,
            verification_id text NOT NULL, kind text NOT NULL, channel text NOT NULL,
            masked_to text NOT NULL, at bigint NOT NULL, failures bigint NOT NULL DEFAULT 0,
            due_at bigint NOT NULL, delivered boolean NOT NULL DEFAULT false, ref text)
        """,
        """
        CREATE INDEX IF NOT EXISTS otp_events_waiting ON otp_events (verification_id, seq)
        WHERE NOT delivered
        """,
        // One row, written by each health check to prove the database takes writes.
        "CREATE TABLE IF NOT EXISTS otp_health (id integer PRIMARY KEY, checked_at bigint NOT NULL)",
        // Authenticator factors: the secret sealed, recovery codes as concatenated 32-byte HMACs.
        """
        CREATE TABLE IF NOT EXISTS otp_totp_factors (
            id text PRIMARY KEY, account text NOT NULL, issuer text NOT NULL,
            sealed_secret bytea NOT NULL, status text NOT NULL, last_step bigint,
            failures bigint NOT NULL, recovery bytea NOT NULL, created_at bigint NOT NULL,
            locked_until bigint, locks bigint NOT NULL DEFAULT 0, used_recovery bytea NOT NULL)
        """,
    ]

    /// The steps after version 1, oldest first: the version each brings the tables to and its
    /// statements, each harmless when its object exists.
    static let upgrades: [(version: Int, statements: [String])] = [
        (
            2,
            [
                // The SMS pumping guard's counters (one row per key and time bucket) and blocks.
                "CREATE TABLE IF NOT EXISTS otp_fraud_counts (key text NOT NULL, bucket bigint NOT NULL, "
                    + "sends bigint NOT NULL DEFAULT 0, approvals bigint NOT NULL DEFAULT 0, "
                    + "keep_until bigint NOT NULL, PRIMARY KEY (key, bucket))",
                "CREATE INDEX IF NOT EXISTS otp_fraud_counts_keep ON otp_fraud_counts (keep_until)",
                "CREATE TABLE IF NOT EXISTS otp_fraud_blocks (key text PRIMARY KEY, until bigint NOT NULL, "
                    + "repeats bigint NOT NULL, forget_at bigint NOT NULL)",
            ]
        ),
        (
            3,
            [
                // The support search: one destination's verifications, newest first.
                """
                CREATE INDEX IF NOT EXISTS otp_verifications_destination
                ON otp_verifications (destination, created_at, id)
                """,
                // Each send's delivery attempt, gone with its verification.
                """
                CREATE TABLE IF NOT EXISTS otp_deliveries (
                    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    verification_id text NOT NULL REFERENCES otp_verifications (id) ON DELETE CASCADE,
                    at bigint NOT NULL, channel text NOT NULL, step text NOT NULL, outcome text NOT NULL,
                    reason text, message_id text)
                """,
                "CREATE INDEX IF NOT EXISTS otp_deliveries_verification ON otp_deliveries (verification_id, seq)",
            ]
        ),
    ]

    /// Makes the schema (when named) and the tables, in one transaction, and checks their version.
    ///
    /// Tables at an older version (1) get the later steps' objects and the current version in the
    /// same transaction; tables at a newer version are refused.
    ///
    /// Tables at the current version are used as they are, without a lock. Otherwise a
    /// transaction-scoped advisory lock on the schema's name keeps two servers from making the
    /// same tables at once (`CREATE TABLE IF NOT EXISTS` alone races), and servers on other
    /// schemas of the database do not wait for it.
    static func create(_ db: PostgresConnection, schema: String?) throws(StoreError) {
        try db.open()
        if try db.query("SELECT (to_regclass('otp_schema') IS NOT NULL)::integer").rows.first?.integer(0)
            == 1,
            try version(db) == Int64(PostgresStore.schemaVersion)
        {
            return
        }
        try db.transaction { () throws(StoreError) in
            try db.query(
                "SELECT pg_advisory_xact_lock(hashtextextended('otp_schema.' || coalesce($1::text, "
                    + "current_schema()::text, ''), 0))", [.text(schema)])
            if let schema {
                // An identifier cannot be a parameter; the name was checked to be letters, digits and _.
                try db.query("CREATE SCHEMA IF NOT EXISTS " + PostgresConnection.quoted(schema))
            }
            for statement in statements { try db.query(statement) }
            var version = try version(db)
            // Tables at an older version: the later steps' objects were made above; the version moves on.
            if let found = version, found >= 1, found < Int64(PostgresStore.schemaVersion) {
                try db.query(
                    "UPDATE otp_schema SET version = $1::integer",
                    [.integer(Int64(PostgresStore.schemaVersion))])
                version = Int64(PostgresStore.schemaVersion)
            }
            guard version == Int64(PostgresStore.schemaVersion) else {
                throw StoreError(
                    "postgres: the tables are at schema version \(version.map(String.init) ?? "none"); "
                        + "this store reads version \(PostgresStore.schemaVersion)")
            }
        }
    }

    /// The version the tables are at, `nil` when `otp_schema` holds none.
    private static func version(_ db: PostgresConnection) throws(StoreError) -> Int64? {
        try db.query("SELECT max(version) FROM otp_schema").rows.first?.integer(0)
    }
}
