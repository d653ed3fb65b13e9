import Dispatch
import Foundation
import OTPCore
import OTPEngine

// The store's connections, each used from its own serial queue: scripts that wait together are
// written as one pipeline.

extension RedisStore {
    func evaluate(
        _ script: RedisScript, keys: [String], arguments: [[UInt8]]
    ) async throws(StoreError)
        -> RedisValue
    {
        try await evaluate(RedisConnection.Evaluation(script: script, keys: keys, arguments: arguments))
    }

    /// Runs a script run on the next connection's queue, sharing its pipeline.
    func evaluate(_ evaluation: RedisConnection.Evaluation) async throws(StoreError) -> RedisValue {
        let outcome: Result<RedisValue, StoreError> = await withCheckedContinuation { continuation in
            submit(.evaluate(evaluation)) { continuation.resume(returning: $0) }
        }
        return try outcome.get()
    }

    /// Runs `body` on the next connection's queue.
    func run(
        _ body: @escaping @Sendable (RedisConnection) throws(StoreError) -> RedisValue
    )
        async throws(StoreError) -> RedisValue
    {
        let outcome: Result<RedisValue, StoreError> = await withCheckedContinuation { continuation in
            submit(.body(body)) { continuation.resume(returning: $0) }
        }
        return try outcome.get()
    }

    /// Queues work on the next connection; `completion` runs on that connection's queue.
    ///
    /// Scripts that wait together go out as one pipeline: written at once, their replies read in
    /// order, so a busy server pays one write and a few reads for many checks instead of a round
    /// trip each. Each script is still one atomic `EVALSHA` in Redis. (Internal for the tests that
    /// hold a connection's queue to make scripts wait together.)
    func submit(
        _ work: RedisCall.Work, completion: @escaping @Sendable (Result<RedisValue, StoreError>) -> Void
    ) {
        let lane = pool[
            next.withLock { count in
                count &+= 1
                return count & Int.max
            } % pool.count]
        // One timeout for the whole call, the wait for the connection's queue included.
        let due = ContinuousClock.now.advanced(by: .milliseconds(RedisConnection.timeoutMilliseconds))
        let outages = self.outages
        let call = RedisCall(work: work, due: due) { result in
            outages.note(result)
            completion(result)
        }
        let first = lane.pending.withLock { (calls: inout [RedisCall]) -> Bool in
            calls.append(call)
            return calls.count == 1
        }
        if first { lane.queue.async { Self.drain(lane) } }
    }

    /// The most scripts one pipeline holds.
    static let pipelineLimit = 256

    /// How far past its oldest call's deadline a pipeline may run for its younger calls.
    static let pipelineGrace: Duration = .milliseconds(300)

    /// Runs every call waiting for a lane, in order, on its queue.
    static func drain(_ lane: Lane) {
        let waiting = lane.pending.withLock { (calls: inout [RedisCall]) -> [RedisCall] in
            defer { calls.removeAll(keepingCapacity: true) }
            return calls
        }
        let now = ContinuousClock.now
        var calls: [RedisCall] = []
        for call in waiting {
            if call.due <= now {
                call.completion(.failure(StoreError("redis: timed out")))
            } else {
                calls.append(call)
            }
        }
        let connection = lane.connection
        var index = 0
        while index < calls.count {
            defer { connection.deadline = nil }
            if case .body(let body) = calls[index].work {
                connection.deadline = calls[index].due
                calls[index].completion(Result { () throws(StoreError) in try body(connection) })
                index += 1
                continue
            }
            var evaluations: [RedisConnection.Evaluation] = []
            var end = index
            while end < calls.count, evaluations.count < pipelineLimit,
                case .evaluate(let evaluation) = calls[end].work
            {
                evaluations.append(evaluation)
                end += 1
            }
            // The youngest call bounds the pipeline's time, but at most a moment past the oldest's:
            // bounded by the oldest alone, one call near its deadline would fail every other call
            // written with it; by the youngest alone, the oldest could wait out another whole
            // deadline behind a frozen server.
            let youngest = calls[index..<end].map(\.due).max() ?? calls[index].due
            connection.deadline = min(youngest, calls[index].due.advanced(by: Self.pipelineGrace))
            for (call, result) in zip(calls[index..<end], connection.evaluateAll(evaluations)) {
                call.completion(result)
            }
            index = end
        }
    }
}

/// One connection, its queue, and the calls waiting for it.
final class Lane: Sendable {
    let connection: RedisConnection
    let queue: DispatchQueue
    let pending = Locked<[RedisCall]>([])

    init(connection: RedisConnection, queue: DispatchQueue) {
        self.connection = connection
        self.queue = queue
    }
}

/// A call waiting for a connection.
struct RedisCall: Sendable {
    enum Work: Sendable {
        /// One script run, which may share a pipeline with others.
        case evaluate(RedisConnection.Evaluation)
        /// Commands of their own.
        case body(@Sendable (RedisConnection) throws(StoreError) -> RedisValue)
    }

    let work: Work
    let due: ContinuousClock.Instant
    let completion: @Sendable (Result<RedisValue, StoreError>) -> Void
}
