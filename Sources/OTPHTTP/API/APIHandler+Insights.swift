import Foundation
import OTPCore
import OTPEngine

extension APIHandler {
    /// `GET /v1/insights/conversion?since=…`: sends, approvals and conversion per region, prefix and
    /// channel from the pumping guard's counters; secret keys only.
    ///
    /// `since` is an RFC 3339 time (default: a day ago); the counters reach back at most a day.
    func insights(_ request: HTTPRequest, caller: APIKeys.Caller?) -> HTTPReply {
        let route = Route.insights
        if caller?.isPublishable == true {
            let error = APIError(
                code: .forbidden, message: "A publishable key cannot read insights; use a secret key.")
            return .now(APIResponses.error(error, route: route.template))
        }
        let since: Date
        if let text = request.query["since"] {
            guard let parsed = WireCoding.parse(text) else {
                let error = APIResponses.invalidRequest(
                    "\"since\" must be an RFC 3339 time such as 2026-12-06T00:00:00Z.")
                return .now(APIResponses.error(error, route: route.template))
            }
            since = parsed
        } else {
            since = verifier.now.addingTimeInterval(-24 * 3600)
        }
        let verifier = self.verifier
        let metrics = self.metrics
        let events = self.events
        return .later {
            do throws(VerifierError) {
                let insights = try await verifier.conversionInsights(since: since)
                return HTTPResponse(
                    status: 200, headers: APIResponses.jsonHeaders, body: Self.insightsJSON(insights),
                    route: route.template)
            } catch {
                Self.logCause(of: error, route: route, events: events)
                return Self.failure(APIError(error), route: route, metrics: metrics)
            }
        }
    }

    /// The insights' JSON: `{"since":…,"regions":[…],"prefixes":[…]}`, each row with its region,
    /// prefix (prefix rows), channel, sends, approvals and conversion.
    static func insightsJSON(_ insights: ConversionInsights) -> [UInt8] {
        var out: [UInt8] = Array(#"{"since":"#.utf8)
        WireJSON.string(WireJSON.timestamp(insights.since), into: &out)
        for (name, rows) in [("regions", insights.regions), ("prefixes", insights.prefixes)] {
            out.append(contentsOf: ",\"\(name)\":[".utf8)
            for (index, row) in rows.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: #"{"region":"#.utf8)
                WireJSON.string(row.region, into: &out)
                if let prefix = row.prefix {
                    out.append(contentsOf: #","prefix":"#.utf8)
                    WireJSON.string(prefix, into: &out)
                }
                out.append(contentsOf: #","channel":"#.utf8)
                WireJSON.string(row.channel.rawValue, into: &out)
                out.append(contentsOf: ",\"sends\":\(row.sends),\"approvals\":\(row.approvals)".utf8)
                let conversion = (row.conversion * 10_000).rounded() / 10_000
                out.append(contentsOf: ",\"conversion\":\(conversion)}".utf8)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
