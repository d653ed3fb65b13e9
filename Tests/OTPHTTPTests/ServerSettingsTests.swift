import Foundation
import OTPEngine
import Testing

@testable import OTPHTTP

/// Each setting's default and bounds, declared once and read by the configurations and the start.
@Suite struct ServerSettingsTests {
    @Test("the configurations' defaults are the settings' defaults")
    func defaults() {
        let server = ServerConfiguration()
        #expect(server.host == ServerSettings.host)
        #expect(server.port == ServerSettings.port.defaultValue)
        #expect(server.threads == ServerSettings.threads.defaultValue)
        #expect(server.connectionTimeout == ServerSettings.connectionTimeout.defaultValue)
        #expect(server.checkFloor == ServerSettings.checkFloor.defaultValue)
        #expect(server.trustedProxies == ServerSettings.trustedProxies.defaultValue)
        #expect(server.maxConnectionsPerAddress == ServerSettings.maxConnectionsPerAddress.defaultValue)
        let http = HTTPServerConfiguration()
        #expect(
            http.host == ServerSettings.host && http.port == server.port && http.threads == server.threads)
        #expect(http.connectionTimeout == server.connectionTimeout)
        #expect(ServerSettings.problems(of: server).isEmpty)
    }

    @Test("a value at a bound is fine; one past it is a fact about the setting, never a flag")
    func bounds() {
        #expect(ServerSettings.threads.problem(1) == nil)
        #expect(ServerSettings.threads.problem(64) == nil)
        let problem = ServerSettings.threads.problem(0)
        #expect(problem == ConfigurationProblem(setting: "threads", fact: "is 0; it must be from 1 to 64"))
        #expect(problem?.description == "threads is 0; it must be from 1 to 64")
        var configuration = ServerConfiguration()
        configuration.threads = 65
        configuration.checkFloor = .seconds(6)
        configuration.port = -1
        #expect(
            ServerSettings.problems(of: configuration).map(\.description) == [
                "port is -1; it must be from 0 to 65535", "threads is 65; it must be from 1 to 64",
                "check-floor is 6000 ms; it must be from 0 ms to 5000 ms",
            ])
    }

    @Test("a server with a setting out of bounds does not start, names the setting, and shuts its store down")
    func startRefused() async throws {
        let store = MemoryStore()
        var configuration = ServerConfiguration(port: 0, apiKeys: ["k"], requestLog: .silent)
        configuration.threads = 0
        configuration.connectionTimeout = .zero
        do {
            let server = try await OTPServerApp.start(
                configuration, store: store, senders: [.sms: ConsoleSender()],
                secret: Array(repeating: 1, count: 32))
            await server.stop()
            Issue.record("a server with 0 threads started")
        } catch {
            #expect(error.problems.map(\.setting) == ["threads", "connection-timeout"])
            #expect(error.message.isEmpty)
            #expect(!error.description.contains("--"))
            #expect(
                error.description
                    == "threads is 0; it must be from 1 to 64. connection-timeout is 0 ms; it must be from 1000 ms to 3600000 ms."
            )
        }
        #expect(!store.ping())
    }

    @Test("a server without an API key says so as a fact about the api-key setting")
    func noKey() async {
        do {
            let server = try await OTPServerApp.start(
                ServerConfiguration(port: 0, requestLog: .silent), store: MemoryStore(),
                senders: [.sms: ConsoleSender()], secret: Array(repeating: 1, count: 32))
            await server.stop()
            Issue.record("a server without an API key started")
        } catch {
            #expect(
                error.problems == [
                    ConfigurationProblem(
                        setting: "api-key", fact: "is missing: the API needs at least one key")
                ])
        }
    }
}
