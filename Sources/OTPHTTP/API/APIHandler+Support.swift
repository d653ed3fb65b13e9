import Foundation
import OTPCore
import OTPEngine

/// The support views: `GET /v1/verifications` (a search by destination) and
/// `GET /v1/verifications/{id}/deliveries`. Secret API keys only: a publishable key gets 403
/// `forbidden`. Destinations are answered masked; codes never appear.
extension APIHandler {
    /// The answer of a support route.
    ///
    /// A store failure is answered 503 and logged with the store's error, as on every route.
    func support(
        _ route: Route, request: HTTPRequest, caller: APIKeys.Caller?, events: RequestLog
    ) -> HTTPReply {
        if caller?.isPublishable == true {
            let error = APIError(
                code: .forbidden, message: "A publishable key cannot read support views; use a secret key.")
            return .now(
                APIResponses.error(error, route: route.template, note: route.id.map(APIResponses.loggedID)))
        }
        let verifier = self.verifier
        let metrics = self.metrics
        if case .deliveries(let id) = route {
            return .later {
                do throws(VerifierError) {
                    let attempts = try await verifier.deliveries(id: id)
                    var body = Array(#"{"deliveries":"#.utf8)
                    Self.deliveriesJSON(attempts, into: &body)
                    body.append(UInt8(ascii: "}"))
                    return HTTPResponse(
                        status: 200, headers: APIResponses.jsonHeaders, body: body, route: route.template,
                        note: APIResponses.loggedID(id))
                } catch {
                    Self.logCause(of: error, route: route, events: events)
                    return Self.failure(APIError(error), route: route, metrics: metrics)
                }
            }
        }
        let search: SearchQuery
        switch Self.searchQuery(request.query) {
        case .success(let parsed): search = parsed
        case .failure(let error): return .now(APIResponses.error(error, route: route.template))
        }
        return .later {
            do throws(VerifierError) {
                let page = try await verifier.verifications(
                    to: search.destination, status: search.status, since: search.since, after: search.after,
                    limit: search.limit)
                return HTTPResponse(
                    status: 200, headers: APIResponses.jsonHeaders, body: Self.pageJSON(page),
                    route: route.template)
            } catch {
                Self.logCause(of: error, route: route, events: events)
                return Self.failure(APIError(error), route: route, metrics: metrics)
            }
        }
    }

    /// A search's parameters, read from the query string.
    struct SearchQuery: Sendable {
        var destination: String
        var status: VerificationStatus?
        var since: Date?
        var after: VerificationCursor?
        var limit: Int
    }

    /// The page size when `limit` is not given.
    static let defaultSearchLimit = 20

    /// Reads a search's query parameters, or the 400 `invalid_request` naming the first one that is wrong.
    static func searchQuery(_ query: [String: String]) -> Result<SearchQuery, APIError> {
        guard let destination = query["destination"], !destination.isEmpty else {
            return .failure(APIResponses.invalidRequest("\"destination\" is required."))
        }
        var search = SearchQuery(destination: destination, limit: defaultSearchLimit)
        if let text = query["status"] {
            guard let status = VerificationStatus(rawValue: text) else {
                return .failure(
                    APIResponses.invalidRequest(
                        "\"status\" must be one of pending, approved, locked, expired or canceled."))
            }
            search.status = status
        }
        if let text = query["since"] {
            guard let since = WireCoding.parse(text) else {
                return .failure(APIResponses.invalidRequest("\"since\" must be an RFC 3339 time."))
            }
            search.since = since
        }
        if let text = query["limit"] {
            guard text.utf8.count <= 3, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let limit = Int(text),
                (1...Verifier.maxSearchLimit).contains(limit)
            else {
                return .failure(
                    APIResponses.invalidRequest(
                        "\"limit\" must be a whole number from 1 to \(Verifier.maxSearchLimit)."))
            }
            search.limit = limit
        }
        if let text = query["cursor"] {
            guard let cursor = VerificationCursor(token: text) else {
                return .failure(APIResponses.invalidRequest("\"cursor\" is not one this server gave."))
            }
            search.after = cursor
        }
        return .success(search)
    }

    /// `{"items":[…],"nextCursor":…}`: each verification object with its `deliveries`.
    static func pageJSON(_ page: VerificationPage) -> [UInt8] {
        var out = Array(#"{"items":["#.utf8)
        for (index, item) in page.items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            var object = ResponseJSON.verification(item.verification)
            object.removeLast()
            object.append(contentsOf: #","deliveries":"#.utf8)
            deliveriesJSON(item.deliveries, into: &object)
            object.append(UInt8(ascii: "}"))
            out += object
        }
        out.append(contentsOf: #"],"nextCursor":"#.utf8)
        if let next = page.next {
            ResponseJSON.string(next.token, into: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// A JSON array of delivery attempts, oldest first.
    static func deliveriesJSON(_ attempts: [DeliveryAttempt], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, attempt) in attempts.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"at":"#.utf8)
            ResponseJSON.string(ResponseJSON.timestamp(attempt.at), into: &out)
            out.append(contentsOf: #","channel":"#.utf8)
            ResponseJSON.string(attempt.channel.rawValue, into: &out)
            out.append(contentsOf: #","error":"#.utf8)
            optionalString(attempt.reason, into: &out)
            out.append(contentsOf: #","messageId":"#.utf8)
            optionalString(attempt.messageID, into: &out)
            out.append(contentsOf: #","outcome":"#.utf8)
            ResponseJSON.string(attempt.outcome.rawValue, into: &out)
            out.append(contentsOf: #","step":"#.utf8)
            ResponseJSON.string(attempt.step.rawValue, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
    }

    private static func optionalString(_ value: String?, into out: inout [UInt8]) {
        if let value { ResponseJSON.string(value, into: &out) } else { out.append(contentsOf: "null".utf8) }
    }
}
