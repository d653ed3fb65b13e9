import Dispatch
import Foundation
import OTPCore
import OTPEngine

/// A fixed number of connections, each used from a serial queue of its own (a lane).
///
/// A call takes the first idle lane, or waits in line for one; it fails with `StoreError` once
/// its deadline passes, whether it was still waiting or already running. Blocking libpq calls
/// therefore run on the lanes' queues, never on the caller's thread.
final class PostgresPool: Sendable {
    /// One call waiting for a lane.
    struct Waiting: Sendable {
        let number: Int
        let due: ContinuousClock.Instant
        let run: @Sendable (PostgresConnection) -> Void
        let fail: @Sendable (StoreError) -> Void
    }

    /// What the lanes share: which are idle, who waits, and whether the pool is shut.
    struct State {
        var idle: [Int]
        var waiting: [Waiting] = []
        var nextNumber = 0
        var shut = false
    }

    /// Where a submitted call goes.
    private enum Next {
        case lane(Int)
        case waiting(Int)
        case shut
    }

    let deadline: Duration
    private let queues: [DispatchQueue]
    private let connections: [PostgresConnection]
    private let state: Locked<State>

    /// Creates `count` lanes whose connections connect on first use.
    init(count: Int, settings: PostgresConnection.Settings) {
        deadline = settings.deadline
        queues = (0..<count).map { DispatchQueue(label: "otp.postgres-store.\($0)") }
        connections = (0..<count).map { _ in PostgresConnection(settings: settings) }
        state = Locked(State(idle: Array((0..<count).reversed())))
    }

    /// Runs `body` on a free connection and hands its result to `completion`, on the lane's queue.
    func submit<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws(StoreError) -> Result,
        completion: @escaping @Sendable (Swift.Result<Result, StoreError>) -> Void
    ) {
        let due = ContinuousClock.now.advanced(by: deadline)
        let run: @Sendable (PostgresConnection) -> Void = { connection in
            guard ContinuousClock.now < due else {
                completion(.failure(StoreError("postgres: timed out waiting for a connection")))
                return
            }
            connection.due = due
            let result: Swift.Result<Result, StoreError>
            do throws(StoreError) {
                result = .success(try body(connection))
            } catch {
                result = .failure(error)
            }
            completion(result)
        }
        let fail: @Sendable (StoreError) -> Void = { completion(.failure($0)) }
        let next = state.withLock { (state: inout State) -> Next in
            if state.shut { return .shut }
            if let lane = state.idle.popLast() { return .lane(lane) }
            let number = state.nextNumber
            state.nextNumber += 1
            state.waiting.append(Waiting(number: number, due: due, run: run, fail: fail))
            return .waiting(number)
        }
        switch next {
        case .shut:
            fail(StoreError("postgres: the store is shut down"))
        case .lane(let lane):
            queues[lane].async { self.serve(lane: lane, first: run) }
        case .waiting(let number):
            // A call still in line at its deadline fails then, not when a lane frees up.
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Self.milliseconds(deadline))) {
                let expired = self.state.withLock { (state: inout State) -> Waiting? in
                    guard let index = state.waiting.firstIndex(where: { $0.number == number }) else {
                        return nil
                    }
                    return state.waiting.remove(at: index)
                }
                expired?.fail(StoreError("postgres: timed out waiting for a connection"))
            }
        }
    }

    /// Runs a call, then every call waiting, on one lane; the lane goes idle when none waits.
    private func serve(lane: Int, first: @Sendable (PostgresConnection) -> Void) {
        let connection = connections[lane]
        first(connection)
        while true {
            let next = state.withLock { (state: inout State) -> Waiting? in
                if state.waiting.isEmpty {
                    state.idle.append(lane)
                    return nil
                }
                return state.waiting.removeFirst()
            }
            guard let next else { return }
            next.run(connection)
        }
    }

    /// Fails the calls waiting, waits for the running ones, and closes every connection.
    func shutdown() async {
        let waiting = state.withLock { (state: inout State) -> [Waiting] in
            state.shut = true
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for call in waiting { call.fail(StoreError("postgres: the store is shut down")) }
        for (queue, connection) in zip(queues, connections) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                queue.async {
                    connection.close()
                    continuation.resume()
                }
            }
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(clamping: StoreTime.milliseconds(duration))
    }
}
