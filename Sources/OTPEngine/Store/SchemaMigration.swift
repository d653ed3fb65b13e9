/// One step of a store's schema: a version and what it changes, applied in one transaction.
///
/// Stores with tables (SQLite, PostgreSQL) number their schema. A store opened on a schema older
/// than it needs applies the pending steps or refuses, as its owner chose; one newer than it knows
/// is always refused, since an older program could misread what a newer one wrote.
public struct SchemaMigration: Sendable, Equatable, CustomStringConvertible {
    /// The schema's version once this step is applied.
    public let version: Int
    /// What the step changes, in a few words.
    public let summary: String

    /// Creates a step.
    public init(version: Int, summary: String) {
        self.version = version
        self.summary = summary
    }

    /// `3: summary`.
    public var description: String { "\(version): \(summary)" }
}

/// What a store does when its schema is older than it needs.
public enum PendingMigrations: Sendable, Equatable {
    /// Applies the pending steps, each in one transaction, when the store opens.
    case apply
    /// Refuses to open, with a ``SchemaMismatch``.
    case refuse
}

/// A store's schema is not the version the program needs: older with steps pending, or newer.
///
/// Stores throw it as the ``StoreError/underlying`` error of the error that refuses to open.
public struct SchemaMismatch: Error, Sendable, Equatable, CustomStringConvertible {
    /// The version the store's schema has.
    public let found: Int
    /// The version this program needs.
    public let needed: Int
    /// The steps that would bring the schema to `needed` (none when it is newer).
    public let pending: [SchemaMigration]

    /// Creates a mismatch.
    public init(found: Int, needed: Int, pending: [SchemaMigration]) {
        self.found = found
        self.needed = needed
        self.pending = pending
    }

    /// Whether the schema was made by a newer program than this one.
    public var isNewer: Bool { found > needed }

    /// The facts: both versions, and the pending steps' count.
    public var description: String {
        isNewer
            ? "the schema is version \(found), newer than version \(needed), the newest this program knows"
            : "the schema is version \(found) and this program needs version \(needed) "
                + "(\(pending.count) migration\(pending.count == 1 ? "" : "s") pending)"
    }
}
