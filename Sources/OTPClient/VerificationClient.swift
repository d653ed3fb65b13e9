import Foundation
import OTPCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The verification server's HTTP API (version 1) over `URLSession`.
///
/// It conforms to ``OTPCore/VerificationService`` so a `VerificationModel` can
/// drive a screen with it, and offers every endpoint with the server's exact
/// answer for scripts and operators.
public final class VerificationClient: VerificationService {
    /// The server's address, such as `http://127.0.0.1:8080`.
    public let baseURL: URL
    private let apiKey: String
    private let proof: (@Sendable () async -> String?)?
    private let session: URLSession
    private let makeIdempotencyKey: @Sendable () -> String
    /// The key of the last start that got no answer, by what it asked: the same start asked again
    /// (Try again, a screen shown again) replays it, and never starts a second verification.
    private let unansweredStart = Locked<(request: [String], key: String)?>(nil)

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - baseURL: The server's address.
    ///   - apiKey: A key the server accepts, sent as a bearer token.
    ///   - timeout: How long one request may take.
    ///   - idempotencyKey: Makes the `Idempotency-Key` of each start; a random UUID by default.
    public convenience init(
        baseURL: URL, apiKey: String, timeout: Duration = .seconds(10),
        idempotencyKey: @escaping @Sendable () -> String = { UUID().uuidString }
    ) {
        self.init(baseURL: baseURL, key: apiKey, proof: nil, timeout: timeout, idempotencyKey: idempotencyKey)
    }

    /// Creates a client for an app, with a publishable key: it starts, checks and resends only its own
    /// verifications, and its approving checks carry ``Verification/approvalToken`` for the app's backend.
    ///
    /// - Parameters:
    ///   - baseURL: The server's address.
    ///   - publishableKey: The app's `pk_…` key; never a secret key in an app.
    ///   - proof: Called before each start for the server's start guard: an App Attest assertion, a
    ///     CAPTCHA token or a Play Integrity token; `nil` sends none.
    ///   - timeout: How long one request may take.
    public convenience init(
        baseURL: URL, publishableKey: String, proof: (@Sendable () async -> String?)? = nil,
        timeout: Duration = .seconds(10)
    ) {
        self.init(
            baseURL: baseURL, key: publishableKey, proof: proof, timeout: timeout,
            idempotencyKey: { UUID().uuidString })
    }

    private init(
        baseURL: URL, key: String, proof: (@Sendable () async -> String?)?, timeout: Duration,
        idempotencyKey: @escaping @Sendable () -> String
    ) {
        self.baseURL = baseURL
        self.apiKey = key
        self.proof = proof
        let configuration = URLSessionConfiguration.ephemeral
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        self.session = URLSession(configuration: configuration)
        self.makeIdempotencyKey = idempotencyKey
    }

    // MARK: - VerificationService

    /// Starts a verification; retried once with the same idempotency key on a network failure.
    public func start(
        to destination: String, channel: Channel?
    ) async throws(VerificationFailure) -> Verification {
        do { return try await startVerification(to: destination, channel: channel).verification } catch {
            throw error.failure
        }
    }

    /// Checks a code.
    public func check(id: String, code: String) async throws(VerificationFailure) -> Verification {
        do { return try await checkCode(id: id, code: code) } catch { throw error.failure }
    }

    /// Sends a new code.
    public func resend(id: String) async throws(VerificationFailure) -> Verification {
        do { return try await resendCode(id: id) } catch { throw error.failure }
    }

    /// Starts a verification whose message speaks `locale`, answered with the server's `Date` (V13).
    public func startAnswer(
        to destination: String, channel: Channel?, locale: String?
    ) async throws(VerificationFailure) -> ServerAnswer {
        try await startAnswer(to: destination, channel: channel, locale: locale, country: nil)
    }

    /// Starts a verification whose message speaks `locale`, with `country` (ISO 3166 alpha-2) as the
    /// region a phone number in national format is read in; answered with the server's `Date` (V13).
    public func startAnswer(
        to destination: String, channel: Channel?, locale: String?, country: String?
    ) async throws(VerificationFailure) -> ServerAnswer {
        do {
            let answer = try await startAnswering(
                to: destination, channel: channel, idempotencyKey: nil, locale: locale, country: country)
            return answer.answer
        } catch {
            throw error.failure
        }
    }

    /// Checks a code, answered with the server's `Date` (V13).
    public func checkAnswer(id: String, code: String) async throws(VerificationFailure) -> ServerAnswer {
        do {
            let body = try Self.json(["code": code])
            let answer = try await send("POST", path: "v1/verifications/\(try escaped(id))/check", body: body)
            return ServerAnswer(answer.verification, httpDate: answer.date)
        } catch {
            throw error.failure
        }
    }

    /// The verification as the server holds it, answered with the server's `Date` (V13).
    public func statusAnswer(id: String) async throws(VerificationFailure) -> ServerAnswer {
        do {
            let answer = try await send("GET", path: "v1/verifications/\(try escaped(id))", body: nil)
            return ServerAnswer(answer.verification, httpDate: answer.date)
        } catch {
            throw error.failure
        }
    }

    /// Sends a new code, answered with the server's `Date` (V13).
    public func resendAnswer(id: String) async throws(VerificationFailure) -> ServerAnswer {
        do {
            let answer = try await send("POST", path: "v1/verifications/\(try escaped(id))/resend", body: nil)
            return ServerAnswer(answer.verification, httpDate: answer.date)
        } catch {
            throw error.failure
        }
    }

    // MARK: - Every endpoint, with the server's exact answer

    /// `POST /v1/verifications`: returns the verification and whether it was created (201) or replayed (200).
    ///
    /// `locale` (a catalog language such as `de`, a region allowed) makes the message speak it.
    /// `country` (ISO 3166 alpha-2, such as `GB`) is the region a phone number written in national
    /// format (`07400 123456`) is read in; a number in E.164 needs none.
    public func startVerification(
        to destination: String, channel: Channel? = nil, idempotencyKey: String? = nil, locale: String? = nil,
        country: String? = nil
    ) async throws(ClientError) -> (verification: Verification, created: Bool) {
        let answer = try await startAnswering(
            to: destination, channel: channel, idempotencyKey: idempotencyKey, locale: locale,
            country: country)
        return (answer.answer.verification, answer.created)
    }

    private func startAnswering(
        to destination: String, channel: Channel?, idempotencyKey: String?, locale: String?, country: String?
    ) async throws(ClientError) -> (answer: ServerAnswer, created: Bool) {
        let request = [destination, channel?.rawValue ?? "", locale ?? "", country ?? ""]
        let key =
            idempotencyKey
            ?? unansweredStart.withLock { last in
                if let last, last.request == request { return last.key }
                let key = makeIdempotencyKey()
                last = (request, key)
                return key
            }
        // Any answer of the server ends the start; only one that never came keeps its key.
        func answered() {
            unansweredStart.withLock { last in
                if last?.key == key { last = nil }
            }
        }
        var body = ["to": destination]
        if let channel { body["channel"] = channel.rawValue }
        if let locale { body["locale"] = locale }
        if let country { body["country"] = country }
        if let proof, let value = await proof() { body["proof"] = value }
        let data = try Self.json(body)
        var attempt = 0
        while true {
            attempt += 1
            do {
                let answer = try await send(
                    "POST", path: "v1/verifications", body: data, headers: ["Idempotency-Key": key])
                answered()
                return (ServerAnswer(answer.verification, httpDate: answer.date), answer.status == 201)
            } catch ClientError.network(let reason) where attempt == 1 {
                _ = reason  // one retry with the same key: the server replays, it never sends twice
                continue
            } catch ClientError.network(let reason) {
                throw .network(reason)
            } catch {
                answered()
                throw error
            }
        }
    }

    private static func json(_ body: [String: String]) throws(ClientError) -> Data {
        do { return try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]) } catch {
            throw .invalidResponse("could not encode the request")
        }
    }

    /// `POST /v1/verifications/{id}/check`.
    public func checkCode(id: String, code: String) async throws(ClientError) -> Verification {
        let data: Data
        do { data = try JSONSerialization.data(withJSONObject: ["code": code]) } catch {
            throw .invalidResponse("could not encode the request")
        }
        return try await send("POST", path: "v1/verifications/\(try escaped(id))/check", body: data)
            .verification
    }

    /// `POST /v1/verifications/{id}/resend`.
    public func resendCode(id: String) async throws(ClientError) -> Verification {
        try await send("POST", path: "v1/verifications/\(try escaped(id))/resend", body: nil).verification
    }

    /// `GET /v1/verifications/{id}`.
    public func status(id: String) async throws(ClientError) -> Verification {
        try await send("GET", path: "v1/verifications/\(try escaped(id))", body: nil).verification
    }

    /// `POST /v1/verifications/{id}/cancel`.
    public func cancel(id: String) async throws(ClientError) -> Verification {
        try await send("POST", path: "v1/verifications/\(try escaped(id))/cancel", body: nil).verification
    }

    // MARK: - Transport

    private func escaped(_ id: String) throws(ClientError) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.~")
        guard !id.isEmpty, let escaped = id.addingPercentEncoding(withAllowedCharacters: allowed) else {
            throw .api(APIError(code: .notFound, message: "Empty verification id."))
        }
        return escaped
    }

    private func send(
        _ method: String, path: String, body: Data?, headers: [String: String] = [:]
    ) async throws(ClientError) -> (verification: Verification, status: Int, date: String?) {
        let (data, status, date) = try await exchangeDated(method, path: path, body: body, headers: headers)
        do { return (try WireCoding.decoder().decode(Verification.self, from: data), status, date) } catch {
            throw .invalidResponse("HTTP \(status) without a verification object")
        }
    }

    /// Sends a request; returns the body and status of a 2xx answer, or throws the API's error.
    func exchange(
        _ method: String, path: String, body: Data?, headers: [String: String] = [:]
    ) async throws(ClientError) -> (Data, Int) {
        let (data, status, _) = try await exchangeDated(method, path: path, body: body, headers: headers)
        return (data, status)
    }

    /// ``exchange(_:path:body:headers:)`` with the answer's `Date` header: the server's time (V13).
    private func exchangeDated(
        _ method: String, path: String, body: Data?, headers: [String: String] = [:]
    ) async throws(ClientError) -> (Data, Int, String?) {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let data: Data
        let response: URLResponse
        do { (data, response) = try await session.data(for: request) } catch {
            throw .network(String(describing: type(of: error)) + ": " + error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw .invalidResponse("not an HTTP response") }
        if (200..<300).contains(http.statusCode) {
            return (data, http.statusCode, http.value(forHTTPHeaderField: "Date"))
        }
        if let body = try? WireCoding.decoder().decode(APIErrorBody.self, from: data) {
            throw .api(body.error)
        }
        throw .invalidResponse("HTTP \(http.statusCode) without an error object")
    }

    /// Percent-escapes an identifier for a path segment.
    func pathSegment(_ id: String) throws(ClientError) -> String {
        try escaped(id)
    }
}

/// Why a client call failed: the server's error, no answer, or an answer that is not the API's.
///
/// Closed on purpose: these are the only three ways an HTTP call can end. New server error codes
/// arrive inside ``api(_:)``.
public enum ClientError: Error, Sendable, Equatable {
    /// The server answered with an error object.
    case api(APIError)
    /// The server could not be reached or did not answer in time.
    case network(String)
    /// The server answered something that is not the API.
    case invalidResponse(String)

    /// The wire error code, such as `incorrect_code`, or `network_failure` / `invalid_response`.
    public var code: String {
        switch self {
        case .api(let error): error.code.rawValue
        case .network: "network_failure"
        case .invalidResponse: "invalid_response"
        }
    }

    /// A sentence for people.
    public var message: String {
        switch self {
        case .api(let error): error.message
        case .network(let reason): "Couldn't reach the server (\(reason))."
        case .invalidResponse(let reason): "The server's answer could not be read (\(reason))."
        }
    }

    /// The failure a screen branches on.
    public var failure: VerificationFailure {
        switch self {
        case .api(let error): VerificationFailure(error)
        case .network, .invalidResponse: .networkFailure
        }
    }
}
