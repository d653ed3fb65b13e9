import Foundation
import OTPCore
import OTPEngine

/// Answers the hosted page's routes through the same ``Verifier``, limits, check floor, answers and
/// error codes as `/v1`, authorised by the page token instead of an API key.
struct HostedHandler: Sendable {
    let pages: HostedPages
    let pageKey: [UInt8]
    let verifier: Verifier
    let metrics: ServerMetrics
    /// Where the store's error behind a 503 is logged.
    var events: RequestLog = .silent
    /// The start guard as a resend from the page meets it, or `nil` when resends are not judged.
    ///
    /// A page's resend sends a paid message like a start does. The page belongs to a verification a
    /// secret key started, so its resends are judged when the guard judges secret keys' starts.
    var resendScreen: StartScreen? = nil

    /// The headers of every answer on the page's routes: no caching, no referrer (the token is in the
    /// path), no framing, and a policy that allows only the page's own script and stylesheet.
    var securityHeaders: [(name: String, value: String)] {
        let formTargets = (["'self'"] + pages.returnOrigins.sorted()).joined(separator: " ")
        let policy =
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
            + "form-action \(formTargets); frame-ancestors 'none'; base-uri 'none'"
        return [
            ("Content-Security-Policy", policy), ("Referrer-Policy", "no-referrer"),
            ("Cache-Control", "no-store"), ("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff"),
        ]
    }

    /// The token a hosted start's answer carries, or `nil` when the link cannot be signed.
    func pageURL(for link: HostedLink) -> String? {
        PageToken.make(link, key: pageKey).map(pages.pageURL(token:))
    }

    /// The answer of a page route to a request that passed the page's middleware (method, body
    /// size, client address; the security headers and the check floor are added to its reply).
    func dispatch(_ route: HostedRoute, request: HTTPRequest, address: String) -> HTTPReply {
        let text = ScreenText(HostedPageHTML.language(acceptLanguage: request.headers["accept-language"]))
        switch route {
        case .asset(let asset):
            return .now(self.asset(asset, route: route))
        case .keySet:
            return .now(
                HTTPResponse(
                    status: 200,
                    headers: [
                        ("Content-Type", "application/json"), ("Cache-Control", "public, max-age=300"),
                        ("Access-Control-Allow-Origin", "*"),
                    ],
                    body: pages.issuer.keySetJSON, route: route.template))
        case .page(let token):
            guard let link = PageToken.open(token, key: pageKey) else {
                return .now(notFound(route, text: text))
            }
            return .later { await page(link: link, token: token, text: text, route: route, status: nil) }
        case .state(let token):
            guard let link = PageToken.open(token, key: pageKey) else {
                return .now(notFound(route, text: text))
            }
            return .later { await state(link: link, text: text, route: route) }
        case .check(let token):
            // Every answer here is held to the check floor by the API's dispatcher.
            guard let link = PageToken.open(token, key: pageKey) else {
                return .now(notFound(route, text: text))
            }
            let isForm = Self.isForm(request)
            let code = isForm ? FormEncoding.value(of: "code", in: request.body) : Self.jsonCode(request.body)
            let seen = isForm ? FormEncoding.value(of: "seen", in: request.body) : nil
            return .later {
                if let seen, code != nil,
                    let again = await postedAgain(
                        link: link, token: token, seen: seen, text: text, route: route)
                {
                    return again
                }
                return await check(
                    link: link, token: token, code: code, isForm: isForm, address: address, text: text,
                    route: route)
            }
        case .resend(let token):
            guard let link = PageToken.open(token, key: pageKey) else {
                return .now(notFound(route, text: text))
            }
            let isForm = Self.isForm(request)
            return .later {
                await resend(
                    link: link, token: token, isForm: isForm, address: address, text: text, route: route)
            }
        }
    }

    // MARK: - Routes

    private func page(
        link: HostedLink, token: String, text: ScreenText, route: HostedRoute, status: StatusMessage?,
        httpStatus: Int = 200
    ) async -> HTTPResponse {
        let verification: Verification
        do throws(VerifierError) {
            verification = try await verifier.status(id: link.verificationID)
        } catch {
            return notFound(route, text: text)
        }
        return page(
            verification, link: link, token: token, text: text, route: route, status: status,
            httpStatus: httpStatus)
    }

    /// The page of a verification already read.
    private func page(
        _ verification: Verification, link: HostedLink, token: String, text: ScreenText, route: HostedRoute,
        status: StatusMessage?, httpStatus: Int = 200
    ) -> HTTPResponse {
        let html = HostedPageHTML.render(
            .init(
                token: token, verification: verification, text: text,
                status: status ?? HostedPageHTML.status(of: verification, text: text), now: verifier.now,
                back: link))
        return htmlResponse(html, status: httpStatus, route: route, note: verification.id)
    }

    private func state(link: HostedLink, text: ScreenText, route: HostedRoute) async -> HTTPResponse {
        do throws(VerifierError) {
            let verification = try await verifier.status(id: link.verificationID)
            let format = CodeFormat(length: verification.codeLength)
            let strings = HostedPageHTML.strings(
                text, format: format, maxAttempts: verifier.policy.maxAttempts)
            let stringsJSON =
                (try? JSONSerialization.data(withJSONObject: strings, options: [.sortedKeys])).map(Array.init)
                ?? Array("{}".utf8)
            var body = Array(#"{"language":"#.utf8)
            ResponseJSON.string(text.language.rawValue, into: &body)
            body += Array(#","now":"#.utf8)
            ResponseJSON.string(ResponseJSON.timestamp(verifier.now), into: &body)
            body += Array(#","strings":"#.utf8) + stringsJSON
            body +=
                Array(#","verification":"#.utf8) + ResponseJSON.verification(verification) + [
                    UInt8(ascii: "}")
                ]
            return
                (HTTPResponse(
                    status: 200, headers: APIResponses.jsonHeaders, body: body, route: route.template,
                    note: APIResponses.loggedID(verification.id)))
        } catch {
            return
                (APIResponses.error(
                    apiError(error, route: route, id: link.verificationID), route: route.template))
        }
    }

    private func check(
        link: HostedLink, token: String, code: String?, isForm: Bool, address: String, text: ScreenText,
        route: HostedRoute
    ) async -> HTTPResponse {
        let outcome: Result<Verification, APIError>
        if let code {
            do throws(VerifierError) {
                let verification = try await verifier.check(
                    id: link.verificationID, code: code, clientAddress: address)
                metrics.recordCheck(outcome: verification.status.rawValue)
                outcome = .success(verification)
            } catch {
                let error = apiError(error, route: route, id: link.verificationID)
                metrics.recordCheck(outcome: error.code.rawValue)
                outcome = .failure(error)
            }
        } else {
            metrics.recordCheck(outcome: OTPErrorCode.invalidRequest.rawValue)
            outcome = .failure(
                APIResponses.invalidRequest(
                    isForm
                        ? "The form must have a field \"code\"."
                        : "The body must be a JSON object with a string \"code\"."))
        }
        switch outcome {
        case .success(let verification):
            guard verification.status == .approved else {
                if isForm {
                    return await page(link: link, token: token, text: text, route: route, status: nil)
                }
                return
                    (HTTPResponse(
                        status: 200, headers: APIResponses.jsonHeaders,
                        body: ResponseJSON.verification(verification),
                        route: route.template, note: APIResponses.loggedID(verification.id)))
            }
            guard let approval = await approvalToken(link: link, verification: verification) else {
                return await failure(
                    APIError(.storeUnavailable()), link: link, token: token, isForm: isForm, text: text,
                    route: route)
            }
            switch (link.responseMode, isForm) {
            case (.query, true):
                return
                    (HTTPResponse(
                        status: 303,
                        headers: [
                            (
                                "Location",
                                HostedPages.redirectURL(
                                    returnURL: link.returnURL, state: link.state, token: approval)
                            )
                        ],
                        route: route.template, note: APIResponses.loggedID(verification.id)))
            case (.formPost, true):
                // The page that posts the token to the return URL: the script submits it at once, and
                // without JavaScript the person presses Continue.
                let html = HostedPageHTML.returnForm(
                    action: link.returnURL, state: link.state, token: approval, text: text)
                return htmlResponse(html, status: 200, route: route, note: verification.id)
            case (.query, false), (.formPost, false):
                break
            }
            var body = ResponseJSON.verification(verification)
            switch link.responseMode {
            case .query:
                ResponseJSON.add(
                    "redirectUrl",
                    HostedPages.redirectURL(returnURL: link.returnURL, state: link.state, token: approval),
                    to: &body)
            case .formPost:
                ResponseJSON.add("returnUrl", link.returnURL, to: &body)
                ResponseJSON.add("returnState", link.state, to: &body)
                ResponseJSON.add("approvalToken", approval, to: &body)
            }
            return
                (HTTPResponse(
                    status: 200, headers: APIResponses.jsonHeaders, body: body, route: route.template,
                    note: APIResponses.loggedID(verification.id)))
        case .failure(let error):
            return await failure(error, link: link, token: token, isForm: isForm, text: text, route: route)
        }
    }

    /// The answer to a form posted again, or `nil` for a form to judge.
    ///
    /// A form carries what its page showed of the verification (`seen`, its sends and attempts
    /// left). While the verification is pending with other counts, a code has been judged or a new
    /// one sent since that page: this is the browser posting an answered form again (a reload),
    /// and its code is not judged a second time. The page answers as the verification stands,
    /// with the wrong-code sentence when only attempts were taken since, as the first answer said.
    private func postedAgain(
        link: HostedLink, token: String, seen: String, text: ScreenText, route: HostedRoute
    ) async -> HTTPResponse? {
        guard let verification = try? await verifier.status(id: link.verificationID),
            verification.status == .pending, seen != HostedPageHTML.formState(of: verification)
        else { return nil }
        let counts = seen.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard counts.count == 2, counts[0] == verification.sendsLeft,
            let attempts = counts[1], attempts > verification.attemptsLeft
        else {
            return page(verification, link: link, token: token, text: text, route: route, status: nil)
        }
        return page(
            verification, link: link, token: token, text: text, route: route,
            status: StatusMessage(text.incorrect(attemptsLeft: verification.attemptsLeft), role: .error),
            httpStatus: OTPErrorCode.incorrectCode.httpStatus)
    }

    private func resend(
        link: HostedLink, token: String, isForm: Bool, address: String, text: ScreenText, route: HostedRoute
    ) async -> HTTPResponse {
        do throws(VerifierError) {
            let verification = try await verifier.resend(
                id: link.verificationID, clientAddress: address, screen: resendScreen)
            if isForm {
                return await page(
                    link: link, token: token, text: text, route: route,
                    status: StatusMessage(text.newCodeSent, role: .success))
            }
            return
                (HTTPResponse(
                    status: 200, headers: APIResponses.jsonHeaders,
                    body: ResponseJSON.verification(verification),
                    route: route.template, note: APIResponses.loggedID(verification.id)))
        } catch {
            let error = apiError(error, route: route, id: link.verificationID)
            if error.code.httpStatus == 429 {
                metrics.recordRateLimited(route: route.template, code: error.code)
            }
            return await failure(error, link: link, token: token, isForm: isForm, text: text, route: route)
        }
    }

    // MARK: - Answers

    /// The API error of an engine refusal, with the store's own error logged when it was the cause.
    private func apiError(_ error: VerifierError, route: HostedRoute, id: String) -> APIError {
        if error.kind == .storeUnavailable {
            events.log(
                .error, "the store failed; the request was answered 503",
                fields: [
                    ("route", route.template), ("verification", id),
                    ("error", error.storeError?.description ?? "unknown"),
                ])
        }
        return APIError(error)
    }

    /// An error as JSON for the script, or the page with the sentence in its language for a form.
    private func failure(
        _ error: APIError, link: HostedLink, token: String, isForm: Bool, text: ScreenText, route: HostedRoute
    ) async -> HTTPResponse {
        guard isForm else { return (APIResponses.error(error, route: route.template)) }
        let length =
            (try? await verifier.status(id: link.verificationID))?.codeLength ?? CodeFormat.default.length
        let sentence = HostedPageHTML.sentence(for: error, format: CodeFormat(length: length), text: text)
        // No longer pending: the page says how it stands (approved by a form whose answer was
        // lost: Verified, with Continue), not only that it is no longer pending.
        let status = error.code == .notPending ? nil : StatusMessage(sentence, role: .error)
        var response = await page(
            link: link, token: token, text: text, route: route, status: status,
            httpStatus: error.code.httpStatus)
        // A 429 says when to come back, as the API's JSON answer does.
        if response.status == 429 {
            response.headers.append(("Retry-After", String(max(1, error.retryAfter ?? 1))))
        }
        return response
    }

    /// A freshly signed approval token for the link's return origin and nonce, naming the verified
    /// destination as the store holds it; `nil` when the store cannot say.
    private func approvalToken(link: HostedLink, verification: Verification) async -> String? {
        guard let audience = HostedPages.origin(of: link.returnURL),
            let found = try? await verifier.approvedSubject(id: verification.id)
        else { return nil }
        return pages.issuer.approvalToken(
            for: found, audience: audience, nonce: link.nonce, issuedAt: verifier.now,
            lifetime: pages.tokenLifetime)
    }

    private func asset(_ asset: HostedRoute.Asset, route: HostedRoute) -> HTTPResponse {
        let (type, body): (String, [UInt8]) =
            switch asset {
            case .script: ("text/javascript; charset=utf-8", HostedAssets.servedScript)
            case .stylesheet: ("text/css; charset=utf-8", Array(HostedAssets.stylesheet.utf8))
            case .normalization: ("application/json", Self.normalizationJSON)
            }
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", type), ("Cache-Control", "public, max-age=3600"),
                ("X-Content-Type-Options", "nosniff"),
            ], body: body, route: route.template)
    }

    /// OTPCore's normalisation rules as JSON, computed once.
    static let normalizationJSON: [UInt8] = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let table = CodeNormalizer.table
        let object = NormalizationJSON(
            decimalZeros: table.decimalZeros, dashes: table.dashes, maxPrefixLetters: table.maxPrefixLetters,
            fullWidthLatin: table.fullWidthLatin.map { [$0.lowerBound, $0.upperBound] })
        return (try? encoder.encode(object)).map(Array.init) ?? Array("{}".utf8)
    }()

    private struct NormalizationJSON: Encodable {
        var decimalZeros: [UInt32]
        var dashes: [String]
        var maxPrefixLetters: Int
        var fullWidthLatin: [[UInt32]]
    }

    private func notFound(_ route: HostedRoute, text: ScreenText) -> HTTPResponse {
        switch route {
        case .page:
            return htmlResponse(HostedPageHTML.notFoundPage(text: text), status: 404, route: route, note: nil)
        default:
            return
                (APIResponses.error(
                    APIError(code: .notFound, message: "This verification page does not exist."),
                    route: route.template))
        }
    }

    private func htmlResponse(_ html: String, status: Int, route: HostedRoute, note: String?) -> HTTPResponse
    {
        (HTTPResponse(
            status: status, headers: [("Content-Type", "text/html; charset=utf-8")],
            body: Array(html.utf8),
            route: route.template, note: note.map(APIResponses.loggedID)))
    }

    private static func isForm(_ request: HTTPRequest) -> Bool {
        (request.headers["content-type"] ?? "").lowercased().hasPrefix("application/x-www-form-urlencoded")
    }

    private struct CodeBody: Decodable {
        var code: String
    }

    private static func jsonCode(_ body: [UInt8]) -> String? {
        (try? JSONDecoder().decode(CodeBody.self, from: Data(body)))?.code
    }
}
