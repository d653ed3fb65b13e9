/// The hosted page's routes: the page, its JSON calls, its assets and the token keys.
///
/// None needs an API key.
enum HostedRoute: Equatable {
    /// The page itself, `GET /v/{token}`.
    case page(token: String)
    /// The page's state as JSON, `GET /v/{token}/state`.
    case state(token: String)
    /// A check from the page, `POST /v/{token}/check` (JSON, or a form without JavaScript).
    case check(token: String)
    /// A resend from the page, `POST /v/{token}/resend`.
    case resend(token: String)
    /// The script, the stylesheet or the normalisation table.
    case asset(Asset)
    /// The public keys of the approval tokens, `GET /.well-known/jwks.json`.
    case keySet

    /// The page's static files.
    enum Asset: String, CaseIterable {
        case script = "otp.js"
        case stylesheet = "otp.css"
        case normalization = "normalize.json"
    }

    /// Every template, for the metrics page and the OpenAPI test.
    static let templates = [
        "/v/{token}", "/v/{token}/state", "/v/{token}/check", "/v/{token}/resend", "/v/assets/{file}",
        "/.well-known/jwks.json",
    ]

    /// The template for logs and metrics: never the token, which is a bearer secret.
    var template: String {
        switch self {
        case .page: "/v/{token}"
        case .state: "/v/{token}/state"
        case .check: "/v/{token}/check"
        case .resend: "/v/{token}/resend"
        case .asset: "/v/assets/{file}"
        case .keySet: "/.well-known/jwks.json"
        }
    }

    /// The methods the route answers; HEAD goes with GET.
    var methods: [String] {
        switch self {
        case .page, .state, .asset, .keySet: ["GET", "HEAD"]
        case .check, .resend: ["POST"]
        }
    }

    /// The route a path names, or `nil` when it is not one of the page's.
    init?(path: String) {
        if path == "/.well-known/jwks.json" {
            self = .keySet
            return
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts.count <= 4, parts[0].isEmpty, parts[1] == "v", !parts[2].isEmpty else {
            return nil
        }
        if parts[2] == "assets" {
            guard parts.count == 4, let asset = Asset(rawValue: String(parts[3])) else { return nil }
            self = .asset(asset)
            return
        }
        let token = String(parts[2])
        if parts.count == 3 {
            self = .page(token: token)
            return
        }
        switch parts[3] {
        case "state": self = .state(token: token)
        case "check": self = .check(token: token)
        case "resend": self = .resend(token: token)
        default: return nil
        }
    }
}
