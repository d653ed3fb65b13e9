import OTPCore
import Testing

@testable import OTPHTTP

/// One request's life as a value: what each of libmicrohttpd's calls does, with no socket.
@Suite struct RequestMachineTests {
    static let limit = 100
    static let smuggling = APIError(code: .invalidRequest, message: "two framings")

    @Test("a plain head reads its body, keeps each piece and hands the request over when it ends")
    func plain() {
        var machine = RequestMachine()
        #expect(machine.headRead(framing: nil, declaredLength: 40, limit: Self.limit) == .readBody)
        #expect(machine.called(size: 30, bodyCount: 0, limit: Self.limit, hasPending: false) == .append)
        #expect(machine.called(size: 10, bodyCount: 30, limit: Self.limit, hasPending: false) == .append)
        #expect(machine.called(size: 0, bodyCount: 40, limit: Self.limit, hasPending: false) == .handle)
        #expect(!machine.isOversized)
        #expect(!machine.closesConnection)
        machine.answered(status: 422, route: "/v1/verifications/{id}/check", note: nil)
        #expect(machine.sent == .init(status: 422, route: "/v1/verifications/{id}/check", note: nil))
        #expect(machine.called(size: 5, bodyCount: 40, limit: Self.limit, hasPending: false) == .discard)
    }

    @Test("a head with two framings is refused before its body and closes the connection")
    func framing() {
        var machine = RequestMachine()
        #expect(
            machine.headRead(framing: Self.smuggling, declaredLength: 10, limit: Self.limit)
                == .refuse(Self.smuggling))
        #expect(machine.closesConnection)
        #expect(!machine.isOversized)
        #expect(machine.refusal == .framing(Self.smuggling))
    }

    @Test("a declared length over the limit is refused before the body; one at the limit is read")
    func declaredLength() {
        var over = RequestMachine()
        #expect(
            over.headRead(framing: nil, declaredLength: Self.limit + 1, limit: Self.limit) == .refuseOversized
        )
        #expect(over.isOversized)
        #expect(over.closesConnection)
        var at = RequestMachine()
        #expect(at.headRead(framing: nil, declaredLength: Self.limit, limit: Self.limit) == .readBody)
        #expect(!at.closesConnection)
    }

    @Test("a chunked body growing past the limit is refused on the socket, and the rest dropped")
    func growingBody() {
        var machine = RequestMachine()
        #expect(machine.headRead(framing: nil, declaredLength: nil, limit: Self.limit) == .readBody)
        #expect(machine.called(size: 60, bodyCount: 0, limit: Self.limit, hasPending: false) == .append)
        #expect(
            machine.called(size: 41, bodyCount: 60, limit: Self.limit, hasPending: false) == .refuseOversized)
        #expect(machine.isOversized)
        machine.answered(status: 413, route: "/v1/verifications", note: nil, onSocket: true)
        #expect(machine.sent?.onSocket == true)
        #expect(machine.called(size: 10, bodyCount: 0, limit: Self.limit, hasPending: false) == .discard)
    }

    @Test("a suspended request drops calls until its answer comes, then queues it once")
    func waiting() {
        var machine = RequestMachine()
        _ = machine.headRead(framing: nil, declaredLength: 0, limit: Self.limit)
        #expect(machine.called(size: 0, bodyCount: 0, limit: Self.limit, hasPending: false) == .handle)
        machine.suspended()
        #expect(machine.phase == .waiting)
        #expect(machine.called(size: 0, bodyCount: 0, limit: Self.limit, hasPending: false) == .discard)
        #expect(machine.called(size: 0, bodyCount: 0, limit: Self.limit, hasPending: true) == .queuePending)
        machine.answered(status: 200, route: "/v1/verifications", note: "approved")
        #expect(machine.sent?.status == 200)
        #expect(machine.called(size: 0, bodyCount: 0, limit: Self.limit, hasPending: true) == .discard)
    }

    @Test("an answered request is not suspended again")
    func answeredStays() {
        var machine = RequestMachine()
        machine.answered(status: 404, route: "(unmatched)", note: nil)
        machine.suspended()
        #expect(machine.sent?.status == 404)
    }
}
