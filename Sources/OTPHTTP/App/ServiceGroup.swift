import OTPEngine

/// A long-running part of a server (a listener, a timer loop, the store's connections) that runs
/// from its start until ``stop(grace:)``.
package protocol ServerService: Sendable {
    /// Ends the part: work in flight gets up to `grace` to finish, and the call returns once the
    /// part has stopped.
    func stop(grace: Duration) async
}

extension HTTPServer: ServerService {}

/// A loop on a task of its own (purging expired records, delivering lifecycle events): started
/// when made, stopped by cancelling it and waiting for it to return.
package final class BackgroundLoop: ServerService {
    private let task: Task<Void, Never>

    /// Starts `loop`, which must return soon after its task is cancelled.
    package init(_ loop: @escaping @Sendable () async -> Void) {
        task = Task { await loop() }
    }

    package func stop(grace: Duration) async {
        task.cancel()
        await task.value
    }
}

/// The store as a part of the server: stopping it closes its connections or files, once the
/// verifier's delivery attempts still on their way to it are written.
package struct StoreService: ServerService {
    let store: any VerificationStore
    /// The verifier whose attempts written behind their answers the store waits for.
    var verifier: Verifier?

    package init(store: any VerificationStore, verifier: Verifier? = nil) {
        self.store = store
        self.verifier = verifier
    }

    package func stop(grace: Duration) async {
        await verifier?.deliveryAttemptsSettled()
        await store.shutdown()
    }
}

/// The long-running parts of a server, stopped together in a fixed order.
///
/// The parts are given in stages. ``stop(grace:)`` stops every part of the first stage at once and
/// waits for all of them, then the second stage, and so on: a server stops its listeners and the
/// purge loop first (no new work), then the event delivery (which may still find events the last
/// requests wrote), then the store they all used, once the last starts' delivery attempts are in it.
package struct ServiceGroup: Sendable {
    private let stages: [[any ServerService]]

    /// Groups the parts, stage by stage, in the order they stop.
    package init(stopping stages: [[any ServerService]]) {
        self.stages = stages
    }

    /// Stops each stage's parts together, one stage after another.
    package func stop(grace: Duration) async {
        for stage in stages {
            await withTaskGroup(of: Void.self) { group in
                for service in stage {
                    group.addTask { await service.stop(grace: grace) }
                }
            }
        }
    }
}
