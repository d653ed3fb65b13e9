import Foundation
import OTPCore

/// The JSON answers of the API: verification objects, error bodies, the health object.
enum APIResponses {
    /// Headers every JSON answer carries.
    static let jsonHeaders: [(name: String, value: String)] = [
        ("Content-Type", "application/json"), ("Cache-Control", "no-store"),
    ]

    /// A verification object with a status.
    static func verification(_ verification: Verification, status: Int, route: Route) -> HTTPResponse {
        return HTTPResponse(
            status: status, headers: jsonHeaders, body: ResponseJSON.verification(verification),
            route: route.template,
            note: loggedID(verification.id))
    }

    /// An error body, its status from the code, with `Retry-After` on 429.
    static func error(_ error: APIError, route: String, note: String? = nil) -> HTTPResponse {
        var error = error
        var headers = jsonHeaders
        let status = error.code.httpStatus
        if status == 429 {
            let seconds = max(1, error.retryAfter ?? 1)
            error.retryAfter = seconds
            headers.append(("Retry-After", String(seconds)))
        }
        return HTTPResponse(
            status: status, headers: headers, body: ResponseJSON.error(error), route: route, note: note)
    }

    /// The verification id the log shows: the whole id.
    ///
    /// Support can then find the verification (two started close together share their first
    /// characters). An id is no credential: using it takes an API key, or a publishable key that
    /// started it.
    static func loggedID(_ id: String) -> String {
        id
    }

    static let unauthorized = APIError(
        code: .unauthorized, message: "A valid API key is needed: Authorization: Bearer <key>.")
    static let routeNotFound = APIError(code: .notFound, message: "There is no such route.")
    static let payloadTooLarge = APIError(code: .payloadTooLarge, message: "The body is over 16 KiB.")
    static let internalError = APIError(
        code: .internalError, message: "Something went wrong on the server. Try again.")

    static func methodNotAllowed(_ allowed: [String]) -> APIError {
        APIError(
            code: .methodNotAllowed, message: "This route answers \(allowed.joined(separator: " and ")) only."
        )
    }

    static func invalidRequest(_ message: String) -> APIError {
        APIError(code: .invalidRequest, message: message)
    }
}
