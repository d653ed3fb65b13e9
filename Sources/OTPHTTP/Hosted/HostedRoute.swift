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

    /// The route's name in ``RouteTable``.
    var name: RouteTable.Name {
        switch self {
        case .page: .page
        case .state: .pageState
        case .check: .pageCheck
        case .resend: .pageResend
        case .asset: .pageAsset
        case .keySet: .keySet
        }
    }

    /// Every template, for the metrics page and the OpenAPI test.
    static let templates = RouteTable.entries.filter(\.isHosted).map(\.template)

    /// The template for logs and metrics, from ``RouteTable``: never the token, which is a bearer
    /// secret.
    var template: String { RouteTable.entry(name).template }

    /// The methods the route answers; HEAD goes with GET.
    var methods: [String] { RouteTable.entry(name).methods }

    /// The route a path names in ``RouteTable``, or `nil` when it is not one of the page's.
    init?(path: String) {
        guard let (name, parameter) = RouteTable.match(path) else { return nil }
        let token = String(parameter)
        switch name {
        case .pageAsset:
            guard let asset = Asset(rawValue: token) else { return nil }
            self = .asset(asset)
        case .page: self = .page(token: token)
        case .pageState: self = .state(token: token)
        case .pageCheck: self = .check(token: token)
        case .pageResend: self = .resend(token: token)
        case .keySet: self = .keySet
        default: return nil
        }
    }
}
