import OTPCore

/// The answers each operation of the API may give: the server's side of `openapi.yaml`.
///
/// A test keeps `openapi.yaml` equal to this table, and the black-box tests check every answer
/// they see against it. Besides these, any path answers 404 `not_found` when it names no route and
/// 405 `method_not_allowed` for a method its route does not take.
enum APIContract {
    /// One method on one route template.
    struct Operation: Sendable {
        let method: String
        let template: String
        /// Statuses of answers that are not errors.
        let success: [Int]
        /// Error codes the operation may answer with.
        let errors: [OTPErrorCode]
        /// Whether its errors have the JSON error body (`/healthz`'s 503 has its own object, the
        /// hosted page's HTML its own page).
        var usesErrorBodies: Bool { template.hasPrefix("/v1/") || template.hasPrefix("/v/{token}/") }

        /// Every status the operation may answer with.
        var statuses: Set<Int> { Set(success + errors.map(\.httpStatus)) }
    }

    private static let always: [OTPErrorCode] = [.unauthorized, .storeUnavailable, .internalError]

    static let operations: [Operation] = [
        Operation(
            method: "POST", template: "/v1/verifications", success: [200, 201],
            errors: always + [
                .invalidRequest, .invalidDestination, .channelNotSupported, .payloadTooLarge,
                .idempotencyKeyReused,
                .rateLimited, .deliveryFailed, .startRefused, .forbidden,
            ]),
        Operation(
            method: "GET", template: "/v1/verifications/{id}", success: [200], errors: always + [.notFound]),
        Operation(
            method: "POST", template: "/v1/verifications/{id}/check", success: [200],
            errors: always + [
                .invalidRequest, .invalidCodeFormat, .notFound, .notPending, .expired, .payloadTooLarge,
                .incorrectCode, .locked, .rateLimited,
            ]),
        Operation(
            method: "POST", template: "/v1/verifications/{id}/resend", success: [200],
            errors: always + [
                .notFound, .notPending, .payloadTooLarge, .rateLimited, .resendTooSoon, .maxSendsReached,
                .deliveryFailed, .startRefused,
            ]),
        Operation(
            method: "POST", template: "/v1/verifications/{id}/cancel", success: [200],
            errors: always + [.notFound, .notPending, .payloadTooLarge, .forbidden]),
        Operation(
            method: "POST", template: "/v1/totp", success: [201],
            errors: always + [.invalidRequest, .payloadTooLarge, .forbidden]),
        Operation(
            method: "DELETE", template: "/v1/totp/{id}", success: [204],
            errors: always + [.notFound, .forbidden]),
        Operation(
            method: "POST", template: "/v1/totp/{id}/check", success: [200],
            errors: always + [
                .invalidRequest, .invalidCodeFormat, .notFound, .codeAlreadyUsed, .payloadTooLarge,
                .incorrectCode,
                .locked, .rateLimited, .forbidden,
            ]),
        Operation(
            method: "POST", template: "/v1/totp/{id}/recover", success: [200],
            errors: always + [
                .invalidRequest, .notFound, .payloadTooLarge, .incorrectCode, .locked, .rateLimited,
                .forbidden, .codeAlreadyUsed, .notPending,
            ]),
        Operation(
            method: "POST", template: "/v1/totp/{id}/recovery-codes", success: [200],
            errors: always + [.notFound, .payloadTooLarge, .forbidden, .notPending]),
        Operation(method: "GET", template: "/healthz", success: [200, 503], errors: []),
        Operation(method: "GET", template: "/metrics", success: [200], errors: []),
        // The hosted page: no API key; a page token in the path instead. 414 is libmicrohttpd's answer
        // to a request line longer than it takes, before any route.
        Operation(method: "GET", template: "/v/{token}", success: [200, 404, 414], errors: []),
        Operation(
            method: "GET", template: "/v/{token}/state", success: [200, 414],
            errors: [.notFound, .storeUnavailable, .internalError]),
        Operation(
            method: "POST", template: "/v/{token}/check", success: [200, 303, 414],
            errors: [
                .invalidRequest, .invalidCodeFormat, .notFound, .notPending, .expired, .payloadTooLarge,
                .incorrectCode, .locked, .rateLimited, .storeUnavailable, .internalError,
            ]),
        Operation(
            method: "POST", template: "/v/{token}/resend", success: [200, 414],
            errors: [
                .notFound, .notPending, .payloadTooLarge, .rateLimited, .resendTooSoon, .maxSendsReached,
                .deliveryFailed, .storeUnavailable, .internalError,
            ]),
        Operation(method: "GET", template: "/v/assets/{file}", success: [200], errors: [.notFound]),
        Operation(method: "GET", template: "/.well-known/jwks.json", success: [200], errors: []),
    ]

    /// Every route template the server answers, `/v1` and the hosted page's.
    static let templates = Route.templates + HostedRoute.templates

    /// Errors any request may get before its route is known.
    static let routeErrors: [OTPErrorCode] = [.unauthorized, .notFound, .methodNotAllowed, .payloadTooLarge]

    /// Whether an answer is one the contract allows for a method and path.
    static func allows(method: String, path: String, status: Int, code: String?) -> Bool {
        if let hosted = HostedRoute(path: path) {
            let effective = method == "HEAD" ? "GET" : method
            guard
                let operation = operations.first(where: {
                    $0.template == hosted.template && $0.method == effective
                })
            else { return code == OTPErrorCode.methodNotAllowed.rawValue }
            // A form post without JavaScript gets its error as the page, with the error's status.
            guard let code else { return operation.statuses.contains(status) }
            return operation.errors.contains(OTPErrorCode(rawValue: code))
                && OTPErrorCode(rawValue: code).httpStatus == status
        }
        let notFound = OTPErrorCode.notFound.rawValue
        // `/metrics` names no route on the main listener when `--metrics-address` moves it.
        guard let route = Route(path: path), !(route == .metrics && code == notFound) else {
            return code.map { routeErrors.map(\.rawValue).contains($0) } ?? false
        }
        let effective = method == "HEAD" ? "GET" : method
        guard
            let operation = operations.first(where: {
                $0.template == route.template && $0.method == effective
            })
        else {
            return code == OTPErrorCode.methodNotAllowed.rawValue
                || code == OTPErrorCode.unauthorized.rawValue
        }
        guard let code else { return operation.success.contains(status) }
        return operation.errors.contains(OTPErrorCode(rawValue: code))
            && OTPErrorCode(rawValue: code).httpStatus == status
    }
}
