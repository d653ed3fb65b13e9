import Foundation
import OTPEngine
import OTPTestSupport
import Testing

@testable import OTPSQLite

/// The checkpointer copies the WAL back into the database once enough of it is new: not at every
/// commit past the threshold, and again after the WAL starts over.
@Suite struct SQLiteCheckpointerTests {
    /// A database whose WAL holds `commits` small commits that no checkpoint has copied.
    private static func database(commits: Int) throws -> (path: String, writer: SQLiteConnection) {
        let path = temporaryDirectory() + "/checkpoints.sqlite3"
        let writer = try SQLiteConnection(path: path, synchronous: .normal)
        try writer.execute("PRAGMA wal_autocheckpoint=0")
        try writer.execute("CREATE TABLE rows (n INTEGER PRIMARY KEY, text TEXT)")
        for index in 0..<commits {
            try writer.query(
                "INSERT INTO rows VALUES (?, ?)", [.integer(Int64(index)), .text("row \(index)")])
        }
        return (path, writer)
    }

    /// Runs `body` with a checkpointer over a database of `commits` commits, after the checkpointer's
    /// first checkpoint, and the pages that checkpoint copied.
    private static func afterFirstCheckpoint(
        commits: Int, _ body: (SQLiteCheckpointer, _ copied: Int32) throws -> Void
    ) throws {
        let (path, writer) = try database(commits: commits)
        defer { writer.close() }
        let checkpointer = SQLiteCheckpointer(path: path)
        defer { checkpointer.stop() }
        checkpointer.request(walPages: SQLiteConnection.walPagesBeforeCheckpointAside)
        let first = checkpointer.settled()
        #expect(first.runs == 1)
        try body(checkpointer, first.copied)
    }

    /// The database file's size: it grows only when a checkpoint copies pages into it.
    private static func fileSize(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    @Test("below the threshold of new pages nothing runs; at it one checkpoint copies the whole WAL")
    func threshold() throws {
        let (path, writer) = try Self.database(commits: 40)
        defer { writer.close() }
        let threshold = SQLiteConnection.walPagesBeforeCheckpointAside
        let checkpointer = SQLiteCheckpointer(path: path)
        defer { checkpointer.stop() }

        let before = try Self.fileSize(path)
        checkpointer.request(walPages: threshold - 1)
        #expect(checkpointer.settled() == (0, 0))
        #expect(try Self.fileSize(path) == before)

        checkpointer.request(walPages: threshold)
        let first = checkpointer.settled()
        #expect(first.runs == 1)
        #expect(first.copied >= 41, "the table, then every commit, wrote at least one page")
        #expect(try Self.fileSize(path) > before, "the table's pages are in the database")
    }

    @Test("after a checkpoint, only as many new pages again start the next one")
    func newPagesOnly() throws {
        let threshold = SQLiteConnection.walPagesBeforeCheckpointAside
        try Self.afterFirstCheckpoint(commits: 20) { checkpointer, copied in
            #expect(copied > 0)
            // Every commit past the threshold asks; none of these is enough pages beyond the last copy.
            for walPages in [threshold, threshold + 1, copied + threshold - 1] {
                checkpointer.request(walPages: walPages)
            }
            #expect(checkpointer.settled().runs == 1)
            checkpointer.request(walPages: copied + threshold)
            #expect(checkpointer.settled().runs == 2)
        }
    }

    @Test("past the catching-up size every ask runs a checkpoint, however few pages are new")
    func catchingUp() throws {
        let catchUp = SQLiteConnection.walPagesBeforeCatchingUp
        let threshold = SQLiteConnection.walPagesBeforeCheckpointAside
        // A WAL long enough that fewer than `threshold` new pages take it past the catching-up size.
        try Self.afterFirstCheckpoint(commits: Int(catchUp - threshold) + 100) { checkpointer, copied in
            #expect(copied > catchUp - threshold)
            checkpointer.request(walPages: min(copied + 10, catchUp - 1))
            #expect(checkpointer.settled().runs == 1, "below the catching-up size, 10 new pages wait")
            checkpointer.request(walPages: max(copied + 10, catchUp))
            #expect(checkpointer.settled().runs == 2)
            checkpointer.request(walPages: max(copied + 11, catchUp + 1))
            #expect(checkpointer.settled().runs == 3)
        }
    }

    @Test("a WAL shorter than what was copied has started over, and counts from its beginning")
    func walStartsOver() throws {
        try Self.afterFirstCheckpoint(commits: 30) { checkpointer, copied in
            #expect(copied >= 30)
            checkpointer.request(walPages: copied - 1)
            #expect(checkpointer.settled() == (1, 0), "started over: nothing of this WAL copied yet")
            checkpointer.request(walPages: SQLiteConnection.walPagesBeforeCheckpointAside)
            #expect(checkpointer.settled().runs == 2)
        }
    }

    @Test("a stopped checkpointer runs nothing more")
    func stopped() throws {
        let (path, writer) = try Self.database(commits: 5)
        defer { writer.close() }
        let checkpointer = SQLiteCheckpointer(path: path)
        let before = try Self.fileSize(path)
        checkpointer.stop()
        checkpointer.request(walPages: SQLiteConnection.walPagesBeforeCheckpointAside * 3)
        #expect(checkpointer.settled().runs == 0)
        #expect(try Self.fileSize(path) == before)
    }
}
