import Foundation
import OTPCore
import OTPEngine
import OTPHTTP
import OTPServe
import OTPTokens

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `otp demo --web`: the hosted page in a desktop browser, end to end.
///
/// It starts the verification server with the hosted page on one loopback port and a stand-in for
/// an app's backend on another, starts a hosted verification, and prints the page's address. The
/// "phone" is the outbox: each code it receives is printed. After approval the page posts the
/// approval token to the backend's page (response mode `form_post`), which verifies it against the
/// server's published keys as a real backend would, expecting the sign-in's nonce and the phone
/// number it started, and shows its claims.
enum WebDemo {
    /// Runs until interrupted; returns the exit status.
    static func run(to destination: String, length: Int, cooldown: Int) async -> Int32 {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "otp-web-demo-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            guard let serverPort = freePort(), let appPort = freePort(), serverPort != appPort else {
                throw ServerStartError("no free loopback port")
            }
            let publicURL = "http://127.0.0.1:\(serverPort)"
            let appOrigin = "http://127.0.0.1:\(appPort)"
            let apiKey = "demo_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let outbox = directory.appendingPathComponent("outbox.jsonl").path
            // What a backend keeps with the sign-in it starts: the token must carry it back.
            let nonce = "n_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            var policy = Policy.default
            policy.codeLength = length
            policy.resendCooldowns = [.seconds(cooldown)]
            policy.appName = "OTPKit demo"
            let server = try await ServeAssembly.start(
                ServeSettings(
                    server: ServerConfiguration(
                        host: "127.0.0.1", port: serverPort, apiKeys: [apiKey], policy: policy,
                        requestLog: .silent),
                    store: .sqlite(path: directory.appendingPathComponent("demo.sqlite3").path),
                    senders: [.outbox(path: outbox)],
                    hosted: HostedSpec(publicURL: publicURL, returnOrigins: [appOrigin])))
            let verified = VerifiedLog()
            let app = try HTTPServer(
                configuration: HTTPServerConfiguration(host: "127.0.0.1", port: appPort, threads: 1),
                handler: ReturnPage(
                    keySetURL: "\(publicURL)/.well-known/jwks.json", issuer: publicURL, audience: appOrigin,
                    expected: expectations(nonce: nonce, destination: destination), log: verified))
            let state = UUID().uuidString
            let pageURL = try await startHosted(
                server: publicURL, apiKey: apiKey, to: destination, returnURL: "\(appOrigin)/verified",
                state: state, nonce: nonce)
            say("the hosted page:  \(pageURL)")
            say("the phone:        \(outbox) (codes are printed below as they arrive)")
            say("after approval the browser lands on \(appOrigin)/verified, which checks the token")
            say("Ctrl-C stops")
            await watch(outbox: outbox, log: verified)
            await app.stop(grace: .seconds(1))
            await server.stop(grace: .seconds(1))
            return 0
        } catch {
            printError("otp demo --web: \(error)")
            return 1
        }
    }

    /// What the stand-in backend expects of the token: its sign-in's nonce, and the destination it
    /// started, as the server normalises it.
    private static func expectations(nonce: String, destination: String) -> ApprovalExpectations {
        guard let parsed = try? Destination.parse(destination, channel: nil) else {
            return ApprovalExpectations(nonce: nonce)
        }
        return parsed.channel == .email
            ? ApprovalExpectations(nonce: nonce, email: parsed.address)
            : ApprovalExpectations(nonce: nonce, phoneNumber: parsed.address)
    }

    /// Starts a hosted verification through the API and returns its page's address.
    private static func startHosted(
        server: String, apiKey: String, to destination: String, returnURL: String, state: String,
        nonce: String
    ) async throws -> String {
        guard let url = URL(string: "\(server)/v1/verifications") else { throw ServerStartError("bad URL") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let body: [String: Any] = [
            "to": destination, "hosted": ["returnUrl": returnURL, "state": state, "nonce": nonce],
        ]
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, _) = try await URLSession(configuration: .ephemeral).data(for: request)
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let page = object["hostedUrl"] as? String
        else {
            throw ServerStartError(
                "the server did not start a hosted verification: \(String(decoding: data, as: UTF8.self))")
        }
        return page
    }

    /// Prints each code the outbox receives and each verified token, until SIGINT or SIGTERM.
    private static func watch(outbox: String, log: VerifiedLog) async {
        let stop = StopSignal()
        var printedCodes = 0
        var printedTokens = 0
        var stopping = false
        while !stopping {
            // One more round after the signal, so nothing received before it goes unprinted.
            stopping = stop.received
            let codes = await OutboxPhone(path: outbox).receivedCodes()
            for code in codes.dropFirst(printedCodes) { say("phone: your code is \(code)") }
            printedCodes = codes.count
            let lines = log.lines
            for line in lines.dropFirst(printedTokens) { say(line) }
            printedTokens = lines.count
            if !stopping { try? await Task.sleep(for: .milliseconds(200)) }
        }
    }

    /// Writes a line at once, even into a pipe, so a script or a log sees each code as it arrives.
    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// A free loopback port, found by binding port 0 and closing it again.
    private static func freePort() -> Int? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}

/// The stand-in for an app's backend: the return URL's page, which takes the posted approval
/// token, verifies it against the server's published key set and the sign-in's expectations, and
/// shows what it found.
private struct ReturnPage: HTTPHandler {
    let keySetURL: String
    let issuer: String
    let audience: String
    let expected: ApprovalExpectations
    let log: VerifiedLog

    func handle(_ request: HTTPRequest) -> HTTPReply {
        guard request.path == "/verified", request.method == "POST" else {
            return .now(HTTPResponse(status: 404, route: "(demo)"))
        }
        let state = FormEncoding.value(of: "state", in: request.body) ?? ""
        guard let token = FormEncoding.value(of: "token", in: request.body) else {
            // The page's ways back without a token: not verified, or verified with the token lost
            // (a backend would then ask the API how its own verification stands).
            let error = FormEncoding.value(of: "error", in: request.body) ?? "none given"
            let sentence = "back without a token: error \(error), state \(state)"
            log.append(sentence)
            return .now(Self.page(sentence))
        }
        let expected = self.expected
        return .later {
            let sentence: String
            do {
                guard let url = URL(string: keySetURL) else { throw ServerStartError("bad key set URL") }
                let (data, _) = try await URLSession(configuration: .ephemeral).data(from: url)
                let verifier = ApprovalTokenVerifier(
                    keySet: try JSONWebKeySet.decode(Array(data)), issuer: issuer, audience: audience)
                let claims = try verifier.verify(token, expecting: expected)
                sentence =
                    "verified: \(claims.phoneNumber ?? claims.email ?? "") (\(claims.sub) by \(claims.channel)), "
                    + "state \(state), token good until \(claims.exp)"
            } catch {
                sentence = "the approval token was refused: \(error)"
            }
            log.append(sentence)
            return Self.page(sentence)
        }
    }

    /// The return page, saying what the backend found.
    private static func page(_ sentence: String) -> HTTPResponse {
        let html =
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Back in the app</title></head>"
            + "<body><h1>Back in the app</h1><p>\(MessageTemplate.escapeHTML(sentence))</p></body></html>"
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(html.utf8),
            route: "/verified")
    }
}

/// What the return page saw, for the terminal.
private final class VerifiedLog: Sendable {
    private let stored = Locked<[String]>([])

    var lines: [String] { stored.withLock { $0 } }

    func append(_ line: String) {
        stored.withLock { $0.append(line) }
    }
}

/// Becomes true once SIGINT or SIGTERM arrives.
private final class StopSignal: @unchecked Sendable {
    // `sources` is written in `init` only.
    private let flag = Locked(false)
    private var sources: [DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                self?.flag.withLock { $0 = true }
            }
            source.resume()
            sources.append(source)
        }
    }

    var received: Bool { flag.withLock { $0 } }
}
