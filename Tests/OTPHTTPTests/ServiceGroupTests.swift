import OTPCore
import OTPEngine
import Testing

@testable import OTPHTTP

/// The long-running parts of a server stop together, stage by stage.
@Suite struct ServiceGroupTests {
    /// What the parts did, in order.
    final class Journal: Sendable {
        private let lines = Locked<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// A part that notes its stop, optionally after another part of its stage has begun stopping.
    struct Part: ServerService {
        let name: String
        let journal: Journal
        var waitsFor: Gate?

        func stop(grace: Duration) async {
            journal.add("\(name) stopping")
            if let waitsFor { await waitsFor.wait() }
            journal.add("\(name) stopped")
        }
    }

    /// Opens once; whoever waits resumes then.
    final class Gate: Sendable {
        private let state = Locked<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            waiting.forEach { $0.resume() }
        }

        func wait() async {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.open { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    /// A part that opens a gate when it begins stopping.
    struct Opener: ServerService {
        let name: String
        let journal: Journal
        let gate: Gate

        func stop(grace: Duration) async {
            journal.add("\(name) stopping")
            gate.open()
            journal.add("\(name) stopped")
        }
    }

    @Test("each stage stops only after every part of the one before has stopped")
    func order() async {
        let journal = Journal()
        let group = ServiceGroup(stopping: [
            [Part(name: "listener", journal: journal)],
            [Part(name: "events", journal: journal)],
            [Part(name: "store", journal: journal)],
        ])
        await group.stop(grace: .zero)
        #expect(
            journal.all == [
                "listener stopping", "listener stopped", "events stopping", "events stopped",
                "store stopping",
                "store stopped",
            ])
    }

    @Test("the parts of one stage stop together: one can wait on another of its stage")
    func together() async {
        let journal = Journal()
        let gate = Gate()
        let group = ServiceGroup(stopping: [
            [
                Part(name: "api", journal: journal, waitsFor: gate),
                Opener(name: "purge", journal: journal, gate: gate),
            ],
            [Part(name: "store", journal: journal)],
        ])
        await group.stop(grace: .zero)
        let lines = journal.all
        #expect(lines.count == 6)
        #expect(Array(lines.suffix(2)) == ["store stopping", "store stopped"])
        #expect(Set(lines.prefix(4)) == ["api stopping", "api stopped", "purge stopping", "purge stopped"])
    }

    @Test("a background loop is cancelled and awaited by its stop")
    func loop() async {
        let journal = Journal()
        let started = Gate()
        let loop = BackgroundLoop {
            started.open()
            while !Task.isCancelled { await Task.yield() }
            journal.add("loop returned")
        }
        await started.wait()
        await loop.stop(grace: .zero)
        #expect(journal.all == ["loop returned"])
    }

    @Test("a stopped server's store is shut down: it no longer answers")
    func storeStops() async throws {
        let store = MemoryStore()
        #expect(await store.ping())
        await ServiceGroup(stopping: [[StoreService(store: store)]]).stop(grace: .zero)
        #expect(!(await store.ping()))
    }
}
