import OTPCore

/// Every route the server answers, declared once: its method, its path template and the answers
/// it may give.
///
/// The dispatcher matches paths against this table (``Route`` for `/v1`, `/healthz` and
/// `/metrics`; ``HostedRoute`` for the hosted page), logs and metrics label requests with its
/// templates, and ``APIContract`` is this table read as the server's side of `openapi.yaml`. A
/// template's `{name}` segment takes any non-empty segment; the first entry that matches a path
/// wins, so a literal segment is listed before a parameter in the same place.
enum RouteTable {
    /// The routes, by name.
    enum Name: Int, CaseIterable, Sendable {
        case start, search, status, deliveries, check, resend, cancel
        case totpEnroll, totpFactor, totpCheck, totpRecover, totpRecoveryCodes
        case insights
        case health, live, ready, metrics
        case pageAsset, page, pageState, pageCheck, pageResend, keySet

        /// Whether every answer of the route is held to the check floor: the routes that judge a code.
        var isHeldToCheckFloor: Bool {
            switch self {
            case .check, .totpCheck, .totpRecover, .pageCheck: true
            default: false
            }
        }

        /// Whether every answer of the route carries the hosted page's security headers: the
        /// page's own routes, not its cacheable assets or the key set.
        var hasPageHeaders: Bool {
            switch self {
            case .page, .pageState, .pageCheck, .pageResend: true
            default: false
            }
        }
    }

    /// One route: a method on a template, and the answers it may give.
    ///
    /// What the route asks of every answer (``Name/isHeldToCheckFloor``, ``Name/hasPageHeaders``)
    /// is read by the middleware from the name alone.
    struct Entry: Sendable {
        let name: Name
        let method: String
        let template: String
        /// Statuses of answers that are not errors.
        let success: [Int]
        /// Error codes the route may answer with.
        let errors: [OTPErrorCode]
        /// The template's segments after its leading `/`: a literal, or `nil` for a parameter.
        fileprivate let segments: [[UInt8]?]

        /// The methods the route answers; HEAD goes with GET.
        var methods: [String] { method == "GET" ? ["GET", "HEAD"] : [method] }

        /// Whether the route is one of the hosted page's (no API key; a page token instead).
        var isHosted: Bool { template.hasPrefix("/v/") || template.hasPrefix("/.well-known/") }

        /// Whether every answer of the route is held to the check floor, so that right, wrong,
        /// unknown and malformed codes take as long: the routes that judge a code.
        var isHeldToCheckFloor: Bool { name.isHeldToCheckFloor }

        /// Whether every answer of the route carries the hosted page's security headers: the
        /// page's own routes, not its cacheable assets or the key set.
        var hasPageHeaders: Bool { name.hasPageHeaders }

        fileprivate init(
            _ name: Name, _ method: String, _ template: String, _ success: [Int], _ errors: [OTPErrorCode]
        ) {
            self.name = name
            self.method = method
            self.template = template
            self.success = success
            self.errors = errors
            segments = template.utf8.dropFirst().split(
                separator: UInt8(ascii: "/"), omittingEmptySubsequences: false
            )
            .map { part in part.first == UInt8(ascii: "{") ? nil : Array(part) }
        }
    }

    private static let always: [OTPErrorCode] = [.unauthorized, .storeUnavailable, .internalError]

    /// The declaration of each route.
    private static func declaration(_ name: Name) -> Entry {
        switch name {
        case .start:
            Entry(
                name, "POST", "/v1/verifications", [200, 201],
                always + [
                    .invalidRequest, .invalidDestination, .channelNotSupported, .payloadTooLarge,
                    .idempotencyKeyReused, .rateLimited, .deliveryFailed, .startRefused, .forbidden,
                    .destinationNotAllowed, .destinationBlocked,
                ])
        case .search:
            Entry(
                name, "GET", "/v1/verifications", [200],
                always + [.invalidRequest, .invalidDestination, .forbidden])
        case .status: Entry(name, "GET", "/v1/verifications/{id}", [200], always + [.notFound])
        case .deliveries:
            Entry(name, "GET", "/v1/verifications/{id}/deliveries", [200], always + [.notFound, .forbidden])
        case .check:
            Entry(
                name, "POST", "/v1/verifications/{id}/check", [200],
                always + [
                    .invalidRequest, .invalidCodeFormat, .notFound, .notPending, .expired, .payloadTooLarge,
                    .incorrectCode, .locked, .rateLimited,
                ])
        case .resend:
            Entry(
                name, "POST", "/v1/verifications/{id}/resend", [200],
                always + [
                    .notFound, .notPending, .payloadTooLarge, .rateLimited, .resendTooSoon, .maxSendsReached,
                    .deliveryFailed, .startRefused, .destinationBlocked,
                ])
        case .cancel:
            Entry(
                name, "POST", "/v1/verifications/{id}/cancel", [200],
                always + [.notFound, .notPending, .payloadTooLarge, .forbidden])
        case .totpEnroll:
            Entry(name, "POST", "/v1/totp", [201], always + [.invalidRequest, .payloadTooLarge, .forbidden])
        case .totpFactor: Entry(name, "DELETE", "/v1/totp/{id}", [204], always + [.notFound, .forbidden])
        case .totpCheck:
            Entry(
                name, "POST", "/v1/totp/{id}/check", [200],
                always + [
                    .invalidRequest, .invalidCodeFormat, .notFound, .codeAlreadyUsed, .payloadTooLarge,
                    .incorrectCode, .locked, .rateLimited, .forbidden,
                ])
        case .totpRecover:
            Entry(
                name, "POST", "/v1/totp/{id}/recover", [200],
                always + [
                    .invalidRequest, .notFound, .payloadTooLarge, .incorrectCode, .locked, .rateLimited,
                    .forbidden, .codeAlreadyUsed, .notPending,
                ])
        case .totpRecoveryCodes:
            Entry(
                name, "POST", "/v1/totp/{id}/recovery-codes", [200],
                always + [.notFound, .payloadTooLarge, .forbidden, .notPending])
        case .insights:
            Entry(name, "GET", "/v1/insights/conversion", [200], always + [.invalidRequest, .forbidden])
        case .health: Entry(name, "GET", "/healthz", [200, 503], [])
        case .live: Entry(name, "GET", "/livez", [200], [])
        case .ready: Entry(name, "GET", "/readyz", [200, 503], [])
        case .metrics: Entry(name, "GET", "/metrics", [200], [])
        // The hosted page: no API key; a page token in the path instead. 414 is libmicrohttpd's answer
        // to a request line longer than it takes, before any route.
        case .pageAsset: Entry(name, "GET", "/v/assets/{file}", [200], [.notFound])
        case .page: Entry(name, "GET", "/v/{token}", [200, 404, 414], [])
        case .pageState:
            Entry(
                name, "GET", "/v/{token}/state", [200, 414], [.notFound, .storeUnavailable, .internalError])
        case .pageCheck:
            Entry(
                name, "POST", "/v/{token}/check", [200, 303, 414],
                [
                    .invalidRequest, .invalidCodeFormat, .notFound, .notPending, .expired, .payloadTooLarge,
                    .incorrectCode, .locked, .rateLimited, .storeUnavailable, .internalError,
                ])
        case .pageResend:
            Entry(
                name, "POST", "/v/{token}/resend", [200, 414],
                [
                    .notFound, .notPending, .payloadTooLarge, .rateLimited, .resendTooSoon, .maxSendsReached,
                    .deliveryFailed, .storeUnavailable, .internalError, .destinationBlocked, .startRefused,
                ])
        case .keySet: Entry(name, "GET", "/.well-known/jwks.json", [200], [])
        }
    }

    /// Every route, in matching order (the order of ``Name``).
    static let entries: [Entry] = Name.allCases.map(declaration)

    /// The route of a name.
    static func entry(_ name: Name) -> Entry { entries[name.rawValue] }

    /// The methods every route on a route's template answers together (`/v1/verifications` takes
    /// a start's POST and a search's GET).
    static func methods(sharingTemplateWith name: Name) -> [String] {
        sharing[name.rawValue].flatMap { entry($0).methods }
    }

    /// For each route, by its raw value, the routes on its template (itself among them), in the
    /// table's order; found once, as each request asks.
    private static let sharing: [[Name]] = entries.map { entry in
        entries.filter { $0.template == entry.template }.map(\.name)
    }

    /// The route whose template matches `path` and that answers `method`, else the first whose
    /// template matches, with the value of its one parameter (empty for a template without one);
    /// `nil` when none matches.
    static func match(_ path: String, method: String) -> (name: Name, parameter: Substring)? {
        guard let first = match(path) else { return nil }
        let answering = sharing[first.name.rawValue].first { answered[$0.rawValue].contains(method) }
        return (answering ?? first.name, first.parameter)
    }

    // What matching reads of each entry, by name, held apart so that a match copies no entry.
    private static let answered: [[String]] = entries.map(\.methods)
    private static let templates: [[[UInt8]?]] = entries.map(\.segments)
    private static let names: [Name] = entries.map(\.name)

    /// The first route whose template matches `path`, with the value of its one parameter (empty
    /// for a template without one); `nil` when none matches.
    static func match(_ path: String) -> (name: Name, parameter: Substring)? {
        var bytes = path
        // Every request is matched: its path is read as one run of bytes, cut at each `/` once.
        let found = bytes.withUTF8 { bytes -> (index: Int, parameter: Range<Int>)? in
            guard bytes.first == UInt8(ascii: "/") else { return nil }
            // The segments after the leading `/`, as byte ranges; a sixth (no template has one)
            // holds the rest of the path.
            var bounds: [Range<Int>] = []
            bounds.reserveCapacity(6)
            var start = 1
            for index in 1..<bytes.count where bytes[index] == UInt8(ascii: "/") {
                bounds.append(start..<index)
                start = index + 1
                if bounds.count == 5 { break }
            }
            bounds.append(start..<bytes.count)
            for (index, segments) in templates.enumerated() where segments.count == bounds.count {
                var parameter = 0..<0
                var matches = true
                for (segment, range) in zip(segments, bounds) {
                    if let literal = segment {
                        guard literal.elementsEqual(UnsafeBufferPointer(rebasing: bytes[range])) else {
                            matches = false
                            break
                        }
                    } else {
                        guard !range.isEmpty else {
                            matches = false
                            break
                        }
                        parameter = range
                    }
                }
                if matches { return (index, parameter) }
            }
            return nil
        }
        guard let found else { return nil }
        let utf8 = path.utf8
        let lower = utf8.index(utf8.startIndex, offsetBy: found.parameter.lowerBound)
        let upper = utf8.index(lower, offsetBy: found.parameter.count)
        return (names[found.index], path[lower..<upper])
    }
}
