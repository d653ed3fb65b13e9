import Foundation
import Testing

@testable import OTPHTTP

/// How a deferred answer reaches its connection: at once while the handler runs, else once the
/// connection is suspended, and never twice or never lost.
@Suite struct AnswerHandoffTests {
    /// The responses delivered to the suspended connection, with their instants.
    final class Delivered: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [(status: Int, due: ContinuousClock.Instant?)] = []

        func add(_ response: HTTPResponse, _ due: ContinuousClock.Instant?) {
            lock.withLock { items.append((response.status, due)) }
        }

        var all: [(status: Int, due: ContinuousClock.Instant?)] { lock.withLock { items } }
    }

    private static func response(_ status: Int) -> HTTPResponse {
        HTTPResponse(status: status, route: "/test")
    }

    @Test("an answer given while the handler runs is sent at once, and not again")
    func early() {
        let handoff = AnswerHandoff()
        handoff.answer(Self.response(200), nil)
        #expect(handoff.takeEarly(at: .now)?.status == 200)
        let delivered = Delivered()
        handoff.suspended(delivered.add)
        handoff.answer(Self.response(500), nil)
        #expect(delivered.all.isEmpty)
    }

    @Test("an early answer held for a later instant waits for the suspended connection")
    func earlyButHeld() {
        let handoff = AnswerHandoff()
        let now = ContinuousClock.now
        let due = now.advanced(by: .seconds(60))
        handoff.answer(Self.response(422), due)
        #expect(handoff.takeEarly(at: now) == nil)
        let delivered = Delivered()
        handoff.suspended(delivered.add)
        #expect(delivered.all.map(\.status) == [422])
        #expect(delivered.all.first?.due == due)
    }

    @Test("an early answer whose instant has passed is sent at once")
    func earlyAndDue() {
        let handoff = AnswerHandoff()
        let now = ContinuousClock.now
        handoff.answer(Self.response(404), now)
        #expect(handoff.takeEarly(at: now.advanced(by: .milliseconds(1)))?.status == 404)
    }

    @Test("an answer after the suspension is delivered once; later ones are dropped")
    func late() {
        let handoff = AnswerHandoff()
        #expect(handoff.takeEarly(at: .now) == nil)
        let delivered = Delivered()
        handoff.suspended(delivered.add)
        #expect(delivered.all.isEmpty)
        handoff.answer(Self.response(201), nil)
        handoff.answer(Self.response(503), nil)
        #expect(delivered.all.map(\.status) == [201])
    }

    @Test("answers racing the suspension from many threads: each connection gets exactly one")
    func racing() async {
        for round in 0..<500 {
            let handoff = AnswerHandoff()
            let delivered = Delivered()
            let answering = Task.detached { handoff.answer(Self.response(200 + round % 3), nil) }
            let early = handoff.takeEarly(at: .now)
            if early == nil { handoff.suspended(delivered.add) }
            await answering.value
            #expect((early == nil ? 0 : 1) + delivered.all.count == 1, "round \(round)")
        }
    }
}
