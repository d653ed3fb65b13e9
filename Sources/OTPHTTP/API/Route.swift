/// The routes of the HTTP API, matched from a path, with the methods each allows.
enum Route: Equatable {
    case start
    case status(id: String)
    case check(id: String)
    case resend(id: String)
    case cancel(id: String)
    case health
    case metrics
    case totpEnroll
    case totpFactor(id: String)
    case totpCheck(id: String)
    case totpRecover(id: String)
    case totpRecoveryCodes(id: String)

    /// The template for logs and metrics; unknown paths share one label so labels stay few.
    var template: String {
        switch self {
        case .start: "/v1/verifications"
        case .status: "/v1/verifications/{id}"
        case .check: "/v1/verifications/{id}/check"
        case .resend: "/v1/verifications/{id}/resend"
        case .cancel: "/v1/verifications/{id}/cancel"
        case .health: "/healthz"
        case .metrics: "/metrics"
        case .totpEnroll: "/v1/totp"
        case .totpFactor: "/v1/totp/{id}"
        case .totpCheck: "/v1/totp/{id}/check"
        case .totpRecover: "/v1/totp/{id}/recover"
        case .totpRecoveryCodes: "/v1/totp/{id}/recovery-codes"
        }
    }

    /// The label of requests that matched no route.
    static let unmatched = "(unmatched)"

    /// Every template, for the metrics page and the OpenAPI test.
    static let templates = [
        "/v1/verifications", "/v1/verifications/{id}", "/v1/verifications/{id}/check",
        "/v1/verifications/{id}/resend", "/v1/verifications/{id}/cancel", "/healthz", "/metrics", "/v1/totp",
        "/v1/totp/{id}", "/v1/totp/{id}/check", "/v1/totp/{id}/recover", "/v1/totp/{id}/recovery-codes",
    ]

    /// The methods the route answers; HEAD goes with GET.
    var methods: [String] {
        switch self {
        case .status, .health, .metrics: ["GET", "HEAD"]
        case .totpFactor: ["DELETE"]
        default: ["POST"]
        }
    }

    /// The verification id in the path, if the route has one.
    var id: String? {
        switch self {
        case .status(let id), .check(let id), .resend(let id), .cancel(let id): id
        default: nil
        }
    }

    /// Whether a path is under `/v1/`, where every request needs an API key.
    static func needsKey(_ path: String) -> Bool {
        path == "/v1" || path.hasPrefix("/v1/")
    }

    /// The route a path names, or `nil` when none does.
    init?(path: String) {
        switch path {
        case "/v1/verifications": self = .start
        case "/healthz": self = .health
        case "/metrics": self = .metrics
        case "/v1/totp": self = .totpEnroll
        case _ where path.utf8.starts(with: "/v1/totp/".utf8):
            let rest = path.utf8.dropFirst("/v1/totp/".utf8.count)
            let slash = rest.firstIndex(of: UInt8(ascii: "/"))
            let id = String(Substring(rest[..<(slash ?? rest.endIndex)]))
            guard !id.isEmpty else { return nil }
            guard let slash else {
                self = .totpFactor(id: id)
                return
            }
            switch Substring(rest[rest.index(after: slash)...]) {
            case "check": self = .totpCheck(id: id)
            case "recover": self = .totpRecover(id: id)
            case "recovery-codes": self = .totpRecoveryCodes(id: id)
            default: return nil
            }
        default:
            // "/v1/verifications/{id}" or "/v1/verifications/{id}/{action}", read without splitting.
            let prefix = "/v1/verifications/"
            guard path.utf8.starts(with: prefix.utf8) else { return nil }
            let rest = path.utf8.dropFirst(prefix.utf8.count)
            let slash = rest.firstIndex(of: UInt8(ascii: "/"))
            let id = String(Substring(rest[..<(slash ?? rest.endIndex)]))
            guard !id.isEmpty else { return nil }
            guard let slash else {
                self = .status(id: id)
                return
            }
            switch Substring(rest[rest.index(after: slash)...]) {
            case "check": self = .check(id: id)
            case "resend": self = .resend(id: id)
            case "cancel": self = .cancel(id: id)
            default: return nil
            }
        }
    }
}
