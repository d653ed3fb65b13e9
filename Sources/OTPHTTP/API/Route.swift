/// The routes of the HTTP API, matched from a path, with the methods each allows.
enum Route: Equatable {
    case start
    case search
    case status(id: String)
    case deliveries(id: String)
    case check(id: String)
    case resend(id: String)
    case cancel(id: String)
    case health
    case live
    case ready
    case metrics
    case totpEnroll
    case totpFactor(id: String)
    case totpCheck(id: String)
    case totpRecover(id: String)
    case totpRecoveryCodes(id: String)
    case insights

    /// The route's name in ``RouteTable``.
    var name: RouteTable.Name {
        switch self {
        case .start: .start
        case .search: .search
        case .status: .status
        case .deliveries: .deliveries
        case .check: .check
        case .resend: .resend
        case .cancel: .cancel
        case .health: .health
        case .live: .live
        case .ready: .ready
        case .metrics: .metrics
        case .totpEnroll: .totpEnroll
        case .totpFactor: .totpFactor
        case .totpCheck: .totpCheck
        case .totpRecover: .totpRecover
        case .totpRecoveryCodes: .totpRecoveryCodes
        case .insights: .insights
        }
    }

    /// The template for logs and metrics, from ``RouteTable``; unknown paths share one label so
    /// labels stay few.
    var template: String { RouteTable.entry(name).template }

    /// The label of requests that matched no route.
    static let unmatched = "(unmatched)"

    /// Every template, for the metrics page and the OpenAPI test.
    static let templates = RouteTable.entries.filter { !$0.isHosted }.map(\.template)

    /// The methods the route's path answers, its own and those of the routes sharing its template;
    /// HEAD goes with GET.
    var methods: [String] { RouteTable.methods(sharingTemplateWith: name) }

    /// The verification id in the path, if the route has one.
    var id: String? {
        switch self {
        case .status(let id), .deliveries(let id), .check(let id), .resend(let id), .cancel(let id): id
        default: nil
        }
    }

    /// Whether a path is under `/v1/`, where every request needs an API key.
    static func needsKey(_ path: String) -> Bool {
        path == "/v1" || path.hasPrefix("/v1/")
    }

    /// The route a path names in ``RouteTable``, or `nil` when none of these does.
    ///
    /// Where two routes share a template, the one answering `method` is chosen, else the first.
    init?(path: String, method: String = "") {
        guard let (name, parameter) = RouteTable.match(path, method: method) else { return nil }
        let id = String(parameter)
        switch name {
        case .start: self = .start
        case .search: self = .search
        case .status: self = .status(id: id)
        case .deliveries: self = .deliveries(id: id)
        case .check: self = .check(id: id)
        case .resend: self = .resend(id: id)
        case .cancel: self = .cancel(id: id)
        case .health: self = .health
        case .live: self = .live
        case .ready: self = .ready
        case .metrics: self = .metrics
        case .totpEnroll: self = .totpEnroll
        case .totpFactor: self = .totpFactor(id: id)
        case .insights: self = .insights
        case .totpCheck: self = .totpCheck(id: id)
        case .totpRecover: self = .totpRecover(id: id)
        case .totpRecoveryCodes: self = .totpRecoveryCodes(id: id)
        case .pageAsset, .page, .pageState, .pageCheck, .pageResend, .keySet: return nil
        }
    }
}
