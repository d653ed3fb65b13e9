import OTPCore

// The answers of /healthz, /livez and /readyz: apart from the rest of APIResponses, since they
// read the release's version and the store's readiness, which the fuzz targets do not build.
extension APIResponses {
    /// `/healthz`'s answer.
    static func health(_ healthy: Bool) -> HTTPResponse {
        HTTPResponse(
            status: healthy ? 200 : 503, headers: jsonHeaders,
            body: Array(
                "{\"status\":\"\(healthy ? "ok" : "unavailable")\",\"version\":\"\(BuildInfo.version)\"}".utf8
            ),
            route: Route.health.template)
    }

    /// `/livez`: the process answers; nothing else is asked.
    static let live = HTTPResponse(
        status: 200, headers: jsonHeaders, body: Array(#"{"status":"ok"}"#.utf8), route: Route.live.template)

    /// `/readyz`: 200 when the store takes writes and the event backlog is under its bound, else 503
    /// with what is wrong.
    static func ready(_ readiness: Readiness) -> HTTPResponse {
        var body =
            "{\"status\":\"\(readiness.isReady ? "ok" : "unavailable")\",\"store\":\"\(readiness.storeWritable ? "ok" : "unavailable")\""
        if let backlog = readiness.eventBacklog { body += ",\"eventBacklog\":\(backlog)" }
        body += "}"
        return HTTPResponse(
            status: readiness.isReady ? 200 : 503, headers: jsonHeaders, body: Array(body.utf8),
            route: Route.ready.template)
    }
}
