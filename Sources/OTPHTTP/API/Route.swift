/// The routes of the HTTP API, matched from a path, with the methods each allows.
enum Route: Equatable {
    case start
    case status(id: String)
    case check(id: String)
    case resend(id: String)
    case cancel(id: String)
    case health
    case metrics

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
        }
    }

    /// The label of requests that matched no route.
    static let unmatched = "(unmatched)"

    /// Every template, for the metrics page and the OpenAPI test.
    static let templates = [
        "/v1/verifications", "/v1/verifications/{id}", "/v1/verifications/{id}/check",
        "/v1/verifications/{id}/resend", "/v1/verifications/{id}/cancel", "/healthz", "/metrics",
    ]

    /// The methods the route answers; HEAD goes with GET.
    var methods: [String] {
        switch self {
        case .status, .health, .metrics: ["GET", "HEAD"]
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
        default:
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count >= 4, parts.count <= 5, parts[0].isEmpty, parts[1] == "v1",
                parts[2] == "verifications", !parts[3].isEmpty
            else { return nil }
            let id = String(parts[3])
            if parts.count == 4 {
                self = .status(id: id)
                return
            }
            switch parts[4] {
            case "check": self = .check(id: id)
            case "resend": self = .resend(id: id)
            case "cancel": self = .cancel(id: id)
            default: return nil
            }
        }
    }
}
