import Foundation
import OTPEngine
import OTPRedis
import OTPTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Defects the reliability tests (scripts/reliability/) found, each held down by a focused test.
@Suite struct ReliabilityRegressionTests {
    /// Makes `count` calls at once; for each, whether it failed and how long it took from when it was made.
    static func parallelCalls(
        _ count: Int, _ call: @escaping @Sendable (Int) async throws -> Void
    ) async -> [(Bool, Duration)] {
        await withTaskGroup(of: (Bool, Duration).self) { group in
            for index in 0..<count {
                group.addTask {
                    let clock = ContinuousClock()
                    let began = clock.now
                    do {
                        try await call(index)
                        return (false, clock.now - began)
                    } catch {
                        return (true, clock.now - began)
                    }
                }
            }
            var all: [(Bool, Duration)] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
    }

    /// Found by scripts/reliability/store_outage.py: with Redis frozen, calls queued behind one
    /// another on a connection, each waiting out the 2 s timeout in turn, so a request could wait
    /// many times the timeout.
    @Test(
        "with Redis accepting but never answering, every one of many parallel calls fails within the timeout")
    func frozenRedis() async throws {
        // It answers each connection's PING at open, as a Redis that froze later would have.
        let silent = try SilentListener(answeringPing: true)
        defer { silent.close() }
        let store = try RedisStore(host: "127.0.0.1", port: silent.port, connections: 2)
        // 16 calls on 2 connections: with the defect, the last in each queue waits 8 timeouts (16 s).
        let outcomes = await Self.parallelCalls(16) { index in
            _ = try await store.record(id: "vf_frozen\(index)")
        }
        #expect(outcomes.allSatisfy { $0.0 }, "a call to a frozen Redis succeeded")
        let slowest = outcomes.map(\.1).max() ?? .zero
        // One 2 s timeout plus scheduling slack. scripts/test.sh runs this suite on its own: beside
        // the parallel run's hundreds of tests, a finished call was seen to wait 10 s to be resumed.
        #expect(slowest < .seconds(5), "the slowest call took \(slowest); the timeout is 2 s")
    }

    /// Another process holding the write lock of the SQLite database at `path` (a backup, another
    /// server), returned once it says it has the lock: a line on its output, not a deadline.
    static func holdWriteLock(_ path: String) throws -> ChildProcess {
        let holder = ChildProcess()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = [
            "python3", "-c",
            "import sqlite3, sys, time\n"
                + "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                + "c.execute('BEGIN IMMEDIATE')\nprint('locked', flush=True)\ntime.sleep(30)",
            path,
        ]
        let output = Pipe()
        holder.standardOutput = .pipe(output)
        try holder.run()
        _ = output.fileHandleForReading.availableData
        return holder
    }

    /// Ends a lock holder.
    static func release(_ holder: ChildProcess) {
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
    }

    /// Found by the security review: a writer holding SQLite's lock (a backup, another process)
    /// made every call wait the 5 s busy timeout in turn on the store's one serial queue.
    @Test(
        "with another process holding SQLite's write lock, every one of many parallel calls fails within 2 s")
    func lockedSQLite() async throws {
        let path = temporaryDirectory() + "/locked.sqlite3"
        let store = try SQLiteStoreFactory.open(path)
        _ = try await store.insert(
            StoreConformanceTests.sample("vf_locked"), claim: nil, now: StoreConformanceTests.t0)
        let holder = try Self.holdWriteLock(path)
        defer { Self.release(holder) }
        let outcomes = await Self.parallelCalls(16) { index in
            _ = try await store.check(
                id: "vf_locked", candidateHash: [1], now: StoreConformanceTests.at(Double(index)))
        }
        #expect(outcomes.allSatisfy { $0.0 }, "a write went through a held lock")
        let slowest = outcomes.map(\.1).max() ?? .zero
        // With the defect the last of 16 queued calls waits 16 × 5 s.
        #expect(slowest < .seconds(5), "the slowest call took \(slowest); the store's deadline is 2 s")
        await store.shutdown()
    }

    /// Found by the security review: a start blocked by another writer waited the insert's deadline,
    /// then the undoing cancel's, and answered after 4 s.
    @Test("with another process holding SQLite's write lock, a start answers storeUnavailable within 2.5 s")
    func startHasOneDeadline() async throws {
        let path = temporaryDirectory() + "/start-locked.sqlite3"
        let store = try SQLiteStoreFactory.open(path)
        let verifier = Verifier(
            store: store, sender: RecordingSender(), policy: Policy(),
            secret: Array(repeating: 7, count: 32))
        _ = try await verifier.start(StartRequest(to: "+15550100", clientAddress: "192.0.2.1"))
        let holder = try Self.holdWriteLock(path)
        defer { Self.release(holder) }
        let clock = ContinuousClock()
        let began = clock.now
        await #expect(throws: VerifierError.self) {
            _ = try await verifier.start(StartRequest(to: "+15550101", clientAddress: "192.0.2.1"))
        }
        let took = clock.now - began
        #expect(took < .milliseconds(2500), "the start took \(took); one deadline of 2 s")
        await store.shutdown()
    }
}

/// A loopback port that completes TCP handshakes (the kernel's backlog) and never reads or answers:
/// a Redis server that is frozen.
private struct SilentListener {
    let descriptor: Int32
    let port: Int

    /// Listens on a free loopback port.
    ///
    /// With `answeringPing`, a thread accepts each connection and answers its first `PING` with
    /// `+PONG`, then reads whatever comes and never answers again; without, no connection is ever
    /// accepted (the kernel's backlog takes them).
    init(answeringPing: Bool = false) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            Glibc.close(fd)
            throw ListenerError.cannotListen
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        if answeringPing {
            Thread.detachNewThread {
                while true {
                    let client = accept(fd, nil, nil)
                    guard client >= 0 else { return }  // The listener was closed.
                    Thread.detachNewThread { Self.answerPingThenFreeze(client) }
                }
            }
        }
    }

    /// Answers the first `PING` on `client`, then swallows everything until the peer goes away.
    private static func answerPingThenFreeze(_ client: Int32) {
        var seen: [UInt8] = []
        var answered = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            if !answered {
                seen += buffer[0..<count]
                if String(decoding: seen, as: UTF8.self).uppercased().contains("PING") {
                    _ = "+PONG\r\n".utf8CString.withUnsafeBufferPointer { write(client, $0.baseAddress, 7) }
                    answered = true
                }
            }
        }
        Glibc.close(client)
    }

    func close() {
        Glibc.close(descriptor)
    }

    enum ListenerError: Error { case cannotListen }
}
