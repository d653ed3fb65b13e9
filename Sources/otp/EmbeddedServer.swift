import Foundation
import OTPEngine
import OTPHTTP
import OTPServe

/// The demo's own server: in this process, on a free loopback port, with a temporary store and outbox.
struct EmbeddedServer {
    let running: RunningServer
    let url: URL
    let apiKey: String
    let outboxPath: String
    let directory: URL

    /// Starts the server with the demo's policy: the code length asked for and one resend cooldown.
    static func start(length: Int, cooldown: Int) async throws -> EmbeddedServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "otp-demo-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        let apiKey =
            "demo_"
            + (0..<24).map { _ in String(UInt8.random(in: 0...15, using: &generator), radix: 16) }
            .joined()
        let outbox = directory.appendingPathComponent("outbox.jsonl").path
        var policy = Policy.default
        policy.codeLength = length
        policy.resendCooldowns = [.seconds(cooldown)]
        policy.appName = "OTPKit demo"
        policy.domain = "localhost"
        let settings = ServeSettings(
            server: ServerConfiguration(
                host: "127.0.0.1", port: 0, apiKeys: [apiKey], policy: policy, requestLog: .silent),
            store: .sqlite(path: directory.appendingPathComponent("demo.sqlite3").path),
            senders: [.outbox(path: outbox)])
        let running: RunningServer
        do { running = try await ServeAssembly.start(settings) } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        guard let url = URL(string: running.url) else {
            await running.stop(grace: .zero)
            throw ServerStartError("the server's address \(running.url) is not a URL")
        }
        return EmbeddedServer(
            running: running, url: url, apiKey: apiKey, outboxPath: outbox, directory: directory)
    }

    /// Stops the server and removes its temporary files.
    func stop() async {
        await running.stop(grace: .seconds(1))
        try? FileManager.default.removeItem(at: directory)
    }
}
