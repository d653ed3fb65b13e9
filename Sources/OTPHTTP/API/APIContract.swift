import OTPCore

/// The answers each operation of the API may give, from ``RouteTable``: the server's side of
/// `openapi.yaml`.
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

    /// Every operation, read from ``RouteTable``.
    static let operations: [Operation] = RouteTable.entries.map {
        Operation(method: $0.method, template: $0.template, success: $0.success, errors: $0.errors)
    }

    /// Every route template the server answers, `/v1` and the hosted page's.
    static let templates = RouteTable.entries.map(\.template)

    /// Errors any request may get before its route is known.
    static let routeErrors: [OTPErrorCode] = [.unauthorized, .notFound, .methodNotAllowed, .payloadTooLarge]

    /// Whether an answer is one the contract allows for a method and path.
    static func allows(method: String, path target: String, status: Int, code: String?) -> Bool {
        // A query string names no other route.
        let path =
            target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(
                String.init)
            ?? target
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
