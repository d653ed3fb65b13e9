import Foundation
import OTPCore
import OTPEngine

/// The HTTP API of HTTP-API.md over a ``Verifier``: authentication, routes, limits, bodies, answers.
///
/// It judges what the HTTP layer owns (the key for every `/v1/` path, route and method, body size,
/// JSON shape, the client address, the `Idempotency-Key` header) and leaves the rest to the engine.
public struct APIHandler: HTTPHandler {
    /// The query parameters the handler reads (the support search's); give them to
    /// ``HTTPServerConfiguration/queryNames``.
    public static let queryNames = ["destination", "status", "since", "limit", "cursor"]

    /// The request headers the handler reads; give them to ``HTTPServerConfiguration/headerNames``.
    public static let headerNames = [
        "authorization", "idempotency-key", "x-forwarded-for", "accept-language", "content-type",
        "x-request-id",
    ]

    let verifier: Verifier
    private let keys: KeyRing
    let metrics: ServerMetrics
    let events: RequestLog
    private let hosted: HostedHandler?
    private let approvalTokens: (any ApprovalTokenIssuing)?
    private let startGuard: StartGuardSettings?
    /// What every `/v1`, `/healthz` and `/metrics` request passes before its route's handler.
    private let apiChain: MiddlewareChain
    /// What every request on the hosted page's routes passes before the page's handler.
    private let hostedChain: MiddlewareChain
    /// The routes this handler answers, when it answers only some (a `/metrics` listener's); any
    /// other path is 404 before keys are asked for.
    private let onlyRoutes: Set<RouteTable.Name>?
    private let addresses: ClientAddressReader
    /// Events waiting above which `/readyz` is 503; `nil` when events are not delivered.
    private let maxEventBacklog: Int?

    /// Creates the API.
    ///
    /// - Parameters:
    ///   - verifier: the engine.
    ///   - keys: the accepted API keys.
    ///   - trustedProxies: how many proxies of your own stand in front; the client address is then
    ///     the entry that many places from the right of `X-Forwarded-For` (0: the socket's peer).
    ///   - metrics: where outcomes are counted.
    ///   - servesMetrics: answer `/metrics` here (`false` when another listener serves it).
    ///   - checkFloor: the least time between a check's arrival and its answer, whatever the answer,
    ///     so that how long the judgement took does not tell a right code from a wrong one.
    ///   - events: where lines about the server itself go, such as a send cap being reached.
    ///   - hosted: the hosted verification page, if this server serves one.
    ///   - hostedKey: the key page tokens are authenticated with; derive it from the server's secret
    ///     with ``hostedPageKey(secret:)``.
    ///   - approvalTokens: signs the approval tokens of publishable keys' approving checks (and of the
    ///     hosted page, when it has no issuer of its own); its key set is served at
    ///     `/.well-known/jwks.json`.
    ///   - startGuard: judges starts before a code is sent.
    ///   - maxEventBacklog: the lifecycle events waiting in the outbox above which `/readyz`
    ///     answers 503; `nil` when the server delivers no events.
    ///   - makeRequestID: makes the id of a request that brought no sane `X-Request-Id`; by default
    ///     a random prefix per handler and a counter.
    ///   - onlyMetricsAndHealth: answer `/metrics` and `/healthz` alone, every other path 404
    ///     before keys are asked for: the handler of a listener of their own (`--metrics-address`).
    public init(
        verifier: Verifier, keys: KeyRing, trustedProxies: Int = 0, metrics: ServerMetrics,
        servesMetrics: Bool = true, checkFloor: Duration = .zero, events: RequestLog = .silent,
        hosted: HostedPages? = nil, hostedKey: [UInt8] = [],
        approvalTokens: (any ApprovalTokenIssuing)? = nil, startGuard: StartGuardSettings? = nil,
        maxEventBacklog: Int? = nil, makeRequestID: (@Sendable () -> String)? = nil,
        onlyMetricsAndHealth: Bool = false
    ) {
        self.onlyRoutes = onlyMetricsAndHealth ? [.metrics, .health] : nil
        self.maxEventBacklog = maxEventBacklog
        self.approvalTokens = approvalTokens ?? hosted?.issuer
        self.startGuard = startGuard
        let pageResendScreen = startGuard.flatMap { settings in
            settings.appliesToSecretKeys
                ? Self.screen(settings, proof: nil, keyName: nil, metrics: metrics, events: events) : nil
        }
        self.hosted = hosted.map {
            HostedHandler(
                pages: $0, pageKey: hostedKey, verifier: verifier, metrics: metrics, events: events,
                resendScreen: pageResendScreen)
        }
        self.verifier = verifier
        self.keys = keys
        self.metrics = metrics
        self.events = events
        let addresses = ClientAddressReader(trustedProxies: max(0, trustedProxies))
        self.addresses = addresses
        let requestIDs = RequestIDs(
            make: makeRequestID ?? RequestIDs.sequence(prefix: RequestIDs.randomPrefix()))
        apiChain = MiddlewareChain([
            requestIDs, APIKeyCheck(keys: keys), RouteCheck(hidden: servesMetrics ? [] : [.metrics]),
            BodyLimit(),
            addresses,
            CheckFloor(floor: checkFloor),
        ])
        // The page's headers wrap every answer on its routes, the body limit's 413 among them.
        hostedChain = MiddlewareChain([
            requestIDs, PageHeaders(headers: self.hosted?.securityHeaders ?? []), BodyLimit(),
            CheckFloor(floor: checkFloor),
            RouteCheck(), addresses,
        ])
    }

    /// The key hosted page tokens are authenticated with, derived from the server's secret.
    public static func hostedPageKey(secret: [UInt8]) -> [UInt8] {
        PageToken.key(fromSecret: secret)
    }

    /// Answers one request: the key set, else the hosted page's routes or the API's, each through
    /// its middleware chain to the route's handler.
    public func handle(_ request: HTTPRequest) -> HTTPReply {
        // The check floor counts from here, so a held answer takes as long whatever work it needed.
        let arrival = ContinuousClock.now
        if let onlyRoutes {
            guard let route = Route(path: request.path, method: request.method),
                onlyRoutes.contains(route.name)
            else {
                return .now(APIResponses.error(APIResponses.routeNotFound, route: Route.unmatched))
            }
        }
        if request.path == "/.well-known/jwks.json", let approvalTokens {
            guard request.method == "GET" || request.method == "HEAD" else {
                var response = APIResponses.error(
                    APIResponses.methodNotAllowed(["GET", "HEAD"]), route: HostedRoute.keySet.template)
                response.headers.append(("Allow", "GET, HEAD"))
                return .now(response)
            }
            return .now(
                HTTPResponse(
                    status: 200,
                    headers: [
                        ("Content-Type", "application/json"), ("Cache-Control", "public, max-age=300"),
                        ("Access-Control-Allow-Origin", "*"),
                    ],
                    body: approvalTokens.keySetJSON, route: HostedRoute.keySet.template))
        }
        if let hosted, let route = HostedRoute(path: request.path) {
            var context = RequestContext(request: request, arrival: arrival, route: route.name)
            return hostedChain.respond(to: &context) { context in
                hosted.dispatch(route, request: context.request, address: context.address)
            }
        }
        let route = Route(path: request.path, method: request.method)
        var context = RequestContext(request: request, arrival: arrival, route: route?.name)
        return apiChain.respond(to: &context) { context in
            // RouteCheck answered 404 for a path that names no route.
            guard let route else {
                return .now(APIResponses.error(APIResponses.routeNotFound, route: Route.unmatched))
            }
            return dispatch(
                route, request: context.request, address: context.address, caller: context.caller,
                events: events.adding("requestId", context.requestID))
        }
    }

    /// The answer of a route to a request that passed the checks every request goes through.
    ///
    /// `events` is the server's log with the request's id on each line.
    private func dispatch(
        _ route: Route, request: HTTPRequest, address: String, caller: APIKeys.Caller?, events: RequestLog
    ) -> HTTPReply {
        switch route {
        case .health:
            let verifier = self.verifier
            return .later { APIResponses.health(await verifier.isHealthy()) }
        case .live:
            return .now(APIResponses.live)
        case .ready:
            let verifier = self.verifier
            let bound = maxEventBacklog
            return .later { APIResponses.ready(await Readiness.judge(verifier, maxEventBacklog: bound)) }
        case .metrics:
            let metrics = self.metrics
            let verifier = self.verifier
            let countsEvents = maxEventBacklog != nil
            return .later {
                let backlog = countsEvents ? await verifier.eventBacklog() : nil
                return HTTPResponse(
                    status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                    body: Array(metrics.prometheusText(eventBacklog: backlog).utf8), route: route.template)
            }
        case .start:
            return start(request, address: address, caller: caller, events: events)
        case .search, .deliveries:
            return support(route, request: request, caller: caller, events: events)
        case .status(let id):
            if let denied = denial(caller, id: id, route: route) { return .now(denied) }
            return answer(route, events: events) { verifier throws(VerifierError) in
                try await verifier.status(id: id)
            }
        case .check(let id):
            return check(request, id: id, address: address, caller: caller, events: events)
        case .resend(let id):
            if let denied = denial(caller, id: id, route: route) { return .now(denied) }
            // A publishable key's resend sends a paid message too: the guard judges it like a start.
            let screen = startGuard.flatMap { settings in
                caller?.isPublishable == true || settings.appliesToSecretKeys
                    ? Self.screen(
                        settings, proof: nil, keyName: caller?.publishableName, metrics: metrics,
                        events: events)
                    : nil
            }
            return answer(route, events: events) { verifier throws(VerifierError) in
                try await verifier.resend(id: id, clientAddress: address, screen: screen)
            }
        case .totpEnroll, .totpFactor, .totpCheck, .totpRecover, .totpRecoveryCodes:
            return totp(route, request: request, address: address, caller: caller)
        case .insights:
            return insights(request, caller: caller)
        case .cancel(let id):
            if caller?.isPublishable == true {
                let error = APIError(
                    code: .forbidden, message: "A publishable key cannot cancel; cancel from your server.")
                return .now(APIResponses.error(error, route: route.template, note: APIResponses.loggedID(id)))
            }
            return answer(route, events: events) { verifier throws(VerifierError) in
                try await verifier.cancel(id: id)
            }
        }
    }

    /// The 404 a publishable key gets for a verification another key started, or `nil` when it may see it.
    ///
    /// Secret keys see every verification.
    private func denial(_ caller: APIKeys.Caller?, id: String, route: Route) -> HTTPResponse? {
        guard let name = caller?.publishableName, !verifier.isStarted(id, by: name) else { return nil }
        return APIResponses.error(APIError(.notFound), route: route.template, note: APIResponses.loggedID(id))
    }

    /// The client's address as ``ClientAddressReader`` reads it for this server.
    func clientAddress(of request: HTTPRequest) -> String {
        addresses.address(of: request)
    }

    private func start(
        _ request: HTTPRequest, address: String, caller: APIKeys.Caller?, events: RequestLog
    ) -> HTTPReply {
        let route = Route.start
        let body: RequestBodies.Start
        switch RequestBodies.start(request.body) {
        case .success(let parsed): body = parsed
        case .failure(let error): return .now(APIResponses.error(error, route: route.template))
        }
        let key = request.headers["idempotency-key"]
        if let key, !RequestBodies.isValidIdempotencyKey(key) {
            let error = APIResponses.invalidRequest(
                "The Idempotency-Key must be 1 to 255 printable ASCII characters.")
            return .now(APIResponses.error(error, route: route.template))
        }
        var wantedLink: RequestBodies.HostedStart?
        if let wanted = body.hosted {
            // A publishable key is public (it is in the app), so a start through it could aim a
            // token at the web app's own return URL.
            if caller?.isPublishable == true {
                let error = APIError(
                    code: .forbidden,
                    message:
                        "A publishable key cannot start a hosted verification; start it from your server.")
                return .now(APIResponses.error(error, route: route.template))
            }
            guard let hosted else {
                let error = APIResponses.invalidRequest(
                    "This server hosts no verification page, so a start cannot ask for \"hosted\".")
                return .now(APIResponses.error(error, route: route.template))
            }
            guard hosted.pages.allowsReturn(to: wanted.returnURL) else {
                let error = APIResponses.invalidRequest(
                    "\"hosted.returnUrl\" must be an absolute URL whose origin is one the server allows "
                        + "the page to return to.")
                return .now(APIResponses.error(error, route: route.template))
            }
            wantedLink = wanted
        }
        let link = wantedLink
        // Only a backend knows its users: an app holding a publishable key could name any address.
        if body.endUser != nil, caller?.isPublishable == true {
            let error = APIError(
                code: .forbidden,
                message: "A publishable key cannot set \"endUser\"; start from your server with a secret key."
            )
            return .now(APIResponses.error(error, route: route.template))
        }
        // The limits per address, the start guard and the figures see the end user's address.
        let limitedAddress = body.endUser?.ip ?? address
        let startRequest = StartRequest(
            to: body.to, channel: body.channel, clientAddress: limitedAddress, idempotencyKey: key,
            idempotencyScope: Self.idempotencyScope(caller, address: address), owner: caller?.publishableName,
            locale: body.locale, ref: body.ref, transaction: body.transaction, country: body.country,
            endUser: body.endUser)
        let verifier = self.verifier
        let metrics = self.metrics
        let judged = startGuard.flatMap { settings in
            caller?.isPublishable == true || settings.appliesToSecretKeys ? settings : nil
        }
        let proof = body.proof
        let hosted = self.hosted
        let answer: @Sendable (Result<StartResult, VerifierError>) -> HTTPResponse = { result in
            switch result {
            case .success(let started):
                return Self.startAnswer(started, link: link, hosted: hosted, route: route)
            case .failure(let error):
                return Self.refusal(error, route: route, metrics: metrics, events: events)
            }
        }
        let screen = judged.map {
            Self.screen(
                $0, proof: proof, keyName: caller?.publishableName, metrics: metrics, events: events)
        }
        // The verifier answers on the thread its store (or sender) answers on: this one for the
        // memory store, with no suspension; the store's own thread for SQLite and Redis.
        return .deferred { reply in
            verifier.start(startRequest, screen: screen) { result in reply.send(answer(result)) }
        }
    }

    /// Whose idempotency keys a caller's are: its API key's, and for a publishable key also the
    /// client address's, since every user of an app holds the same publishable key.
    static func idempotencyScope(_ caller: APIKeys.Caller?, address: String) -> String {
        let scope = caller?.scope ?? ""
        guard caller?.isPublishable == true else { return scope }
        return scope + "\u{1F}" + ClientAddress.limitKey(address)
    }

    /// The answer to a start: 201 for a new verification, 200 for a replay, with the hosted page's
    /// link when the start asked for one.
    private static func startAnswer(
        _ result: StartResult, link: RequestBodies.HostedStart?, hosted: HostedHandler?, route: Route
    ) -> HTTPResponse {
        var response = APIResponses.verification(
            result.verification, status: result.created ? 201 : 200, route: route)
        if let link, let hosted,
            let url = hosted.pageURL(
                for: HostedLink(
                    verificationID: result.verification.id, returnURL: link.returnURL, state: link.state,
                    nonce: link.nonce, responseMode: link.responseMode))
        {
            ResponseJSON.add("hostedUrl", url, to: &response.body)
        }
        return response
    }

    private func check(
        _ request: HTTPRequest, id: String, address: String, caller: APIKeys.Caller?, events: RequestLog
    ) -> HTTPReply {
        let route = Route.check(id: id)
        let verifier = self.verifier
        let metrics = self.metrics
        // Every answer here, right, wrong, unknown or malformed, is held to the check floor by the
        // dispatcher (`RouteTable.Entry.isHeldToCheckFloor`).
        if let denied = denial(caller, id: id, route: route) {
            metrics.recordCheck(outcome: OTPErrorCode.notFound.rawValue)
            return .now(denied)
        }
        let tokens = caller?.publishableName.flatMap { name in approvalTokens.map { (name, $0) } }
        switch RequestBodies.check(request.body) {
        case .failure(let invalid):
            // The verification's existence is judged before the body.
            return .later {
                let response: HTTPResponse
                do throws(VerifierError) {
                    let verification = try await verifier.status(id: id)
                    metrics.recordCheck(outcome: invalid.code.rawValue)
                    // The verification exists: the error carries its attempts left (HTTP-API.md).
                    var invalid = invalid
                    invalid.attemptsLeft = verification.attemptsLeft
                    response = APIResponses.error(
                        invalid, route: route.template, note: APIResponses.loggedID(id))
                } catch {
                    Self.logCause(of: error, route: route, events: events)
                    let error = APIError(error)
                    metrics.recordCheck(outcome: error.code.rawValue)
                    response = Self.failure(error, route: route, metrics: metrics)
                }
                return response
            }
        case .success(let code):
            // Answered on the thread the store answers on (this one for the memory store, the
            // store's own for SQLite and Redis).
            return .deferred { answer in
                verifier.check(id: id, code: code, clientAddress: address) { result in
                    if let tokens, case .success(let verification) = result, verification.status == .approved
                    {
                        Task {
                            let response = await Self.approvalAnswer(
                                verification, route: route, metrics: metrics, tokens: tokens,
                                verifier: verifier, events: events)
                            answer.send(response)
                        }
                        return
                    }
                    answer.send(Self.checkAnswer(result, route: route, metrics: metrics, events: events))
                }
            }
        }
    }

    /// The answer to an approving check by a publishable key: the verification with its approval
    /// token, which names the verified destination (read from the store, never from the request).
    private static func approvalAnswer(
        _ verification: Verification, route: Route, metrics: ServerMetrics,
        tokens: (String, any ApprovalTokenIssuing), verifier: Verifier, events: RequestLog
    ) async -> HTTPResponse {
        metrics.recordCheck(outcome: verification.status.rawValue)
        var approved = APIResponses.verification(verification, status: 200, route: route)
        let subject: ApprovedSubject?
        do throws(VerifierError) {
            subject = try await verifier.approvedSubject(id: verification.id)
        } catch {
            logCause(of: error, route: route, events: events)
            return failure(APIError(error), route: route, metrics: metrics)
        }
        guard let subject else { return failure(APIError(.notPending), route: route, metrics: metrics) }
        // The app hands this to its own backend, which verifies it offline.
        let token = tokens.1.approvalToken(
            for: subject, audience: tokens.0, nonce: nil, issuedAt: verifier.now,
            lifetime: HostedPages.defaultTokenLifetime)
        ResponseJSON.add("approvalToken", token, to: &approved.body)
        return approved
    }

    /// The answer to a judged check, counted by outcome.
    private static func checkAnswer(
        _ result: Result<Verification, VerifierError>, route: Route, metrics: ServerMetrics,
        events: RequestLog
    ) -> HTTPResponse {
        switch result {
        case .success(let verification):
            metrics.recordCheck(outcome: verification.status.rawValue)
            return APIResponses.verification(verification, status: 200, route: route)
        case .failure(let failure):
            logCause(of: failure, route: route, events: events)
            let error = APIError(failure)
            metrics.recordCheck(outcome: error.code.rawValue)
            return Self.failure(error, route: route, metrics: metrics)
        }
    }

    /// The start guard as the engine asks it for one request: with the request's proof and key
    /// name, each verdict counted and logged, and an unavailable guard let through when it fails open.
    private static func screen(
        _ settings: StartGuardSettings, proof: String?, keyName: String?, metrics: ServerMetrics,
        events: RequestLog
    ) -> StartScreen {
        { start in
            var start = start
            start.proof = proof
            start.keyName = keyName
            let verdict = await settings.guardian.judge(start)
            let key = ("key", keyName ?? "secret")
            switch verdict {
            case .allow:
                metrics.recordStartGuard("allowed")
                events.log(.debug, "the start guard allowed a start", fields: [("outcome", "allowed"), key])
            case .refuse(let reason):
                metrics.recordStartGuard("refused")
                events.log(
                    .info, "the start guard refused a start",
                    fields: [("outcome", "refused"), key, ("reason", reason)])
            case .unavailable(let cause):
                let outcome = settings.failOpen ? "unavailable_open" : "unavailable_closed"
                metrics.recordStartGuard(outcome)
                events.log(
                    .warning,
                    settings.failOpen
                        ? "the start guard did not answer; the start went ahead (fail open)"
                        : "the start guard did not answer; the start was refused (fail closed)",
                    fields: [("outcome", outcome), key, ("error", cause)])
                if settings.failOpen { return .allow }
            }
            return verdict
        }
    }

    private func answer(
        _ route: Route, events: RequestLog,
        _ call: @escaping @Sendable (Verifier) async throws(VerifierError) -> Verification
    ) -> HTTPReply {
        let verifier = self.verifier
        let metrics = self.metrics
        return .later {
            do throws(VerifierError) {
                return APIResponses.verification(try await call(verifier), status: 200, route: route)
            } catch {
                return Self.refusal(error, route: route, metrics: metrics, events: events)
            }
        }
    }

    /// The answer to an engine refusal; a send cap reached is also counted and logged, since it means
    /// real users are being refused while the cap lasts.
    private static func refusal(
        _ error: VerifierError, route: Route, metrics: ServerMetrics, events: RequestLog
    ) -> HTTPResponse {
        logCause(of: error, route: route, events: events)
        if let limit = error.limit, limit.isSendCap {
            metrics.recordSendCapReached(limit.name)
            events.event(
                "send_cap_reached", "a send cap was reached: starts are refused while it lasts",
                ["cap": limit.name, "route": route.template])
        }
        if let refusal = error.refusal {
            metrics.recordDestinationRefused(reason: refusal.rawValue)
        }
        return failure(APIError(error), route: route, metrics: metrics)
    }

    /// Logs why the store failed a request, which then answers 503.
    ///
    /// The line holds the store's own error, the route and the verification. A failed send is
    /// logged where it fails (``MetricsSender``).
    static func logCause(of error: VerifierError, route: Route, events: RequestLog) {
        guard error.kind == .storeUnavailable else { return }
        var fields = [("route", route.template)]
        if let id = route.id { fields.append(("verification", id)) }
        fields.append(("error", error.storeError?.description ?? "unknown"))
        events.log(.error, "the store failed; the request was answered 503", fields: fields)
    }

    static func failure(_ error: APIError, route: Route, metrics: ServerMetrics) -> HTTPResponse {
        if error.code.httpStatus == 429 {
            metrics.recordRateLimited(route: route.template, code: error.code)
        }
        return APIResponses.error(error, route: route.template, note: route.id.map(APIResponses.loggedID))
    }
}
