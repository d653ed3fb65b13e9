import Foundation
import OTPCore
import OTPEngine
import OTPQR

/// The authenticator-factor routes: `/v1/totp`, `/v1/totp/{id}`, `/check`, `/recover` and
/// `/recovery-codes`. Secret API keys only: a publishable key gets 403 `forbidden`.
extension APIHandler {
    private struct EnrollBody: Decodable {
        var account: String
        var issuer: String
    }

    func totp(
        _ route: Route, request: HTTPRequest, address: String, caller: APIKeys.Caller?
    ) -> HTTPReply {
        if caller?.isPublishable == true {
            let error = APIError(
                code: .forbidden,
                message: "Authenticator factors are managed with a secret key, from your server.")
            return .now(APIResponses.error(error, route: route.template))
        }
        let verifier = self.verifier
        let metrics = self.metrics
        let events = self.events
        switch route {
        case .totpEnroll:
            guard let body = try? JSONDecoder().decode(EnrollBody.self, from: Data(request.body)) else {
                return .now(
                    APIResponses.error(
                        APIResponses.invalidRequest(
                            "The body must be a JSON object with a string \"account\" and a string \"issuer\"."
                        ),
                        route: route.template))
            }
            if let problem = Verifier.factorNameProblem(account: body.account, issuer: body.issuer) {
                return .now(APIResponses.error(APIResponses.invalidRequest(problem), route: route.template))
            }
            return .later {
                do throws(VerifierError) {
                    let enrollment = try await verifier.enrollTOTP(account: body.account, issuer: body.issuer)
                    var json = Self.factorJSON(enrollment.factor)
                    ResponseJSON.add("otpauthUri", enrollment.otpauthURI, to: &json)
                    if let svg = QRCode(enrollment.otpauthURI)?.svg() {
                        ResponseJSON.add("qrSvg", svg, to: &json)
                    }
                    return Self.factorResponse(json, status: 201, route: route)
                } catch {
                    return Self.factorFailure(error, route: route, metrics: metrics, events: events)
                }
            }
        case .totpCheck(let id), .totpRecover(let id):
            // Every answer here is held to the check floor by the dispatcher.
            let code: String
            switch RequestBodies.check(request.body) {
            case .success(let parsed): code = parsed
            case .failure(let error):
                return .now(APIResponses.error(error, route: route.template, note: APIResponses.loggedID(id)))
            }
            let recovering = route == .totpRecover(id: id)
            return .later {
                let response: HTTPResponse
                do throws(VerifierError) {
                    if recovering {
                        let factor = try await verifier.recoverTOTP(
                            id: id, code: code, clientAddress: address)
                        response = Self.factorResponse(Self.factorJSON(factor), status: 200, route: route)
                    } else {
                        let (factor, codes) = try await verifier.checkTOTP(
                            id: id, code: code, clientAddress: address)
                        var json = Self.factorJSON(factor)
                        if let codes { Self.addStrings("recoveryCodes", codes, to: &json) }
                        response = Self.factorResponse(json, status: 200, route: route)
                    }
                } catch {
                    response = Self.factorFailure(error, route: route, metrics: metrics, events: events)
                }
                return response
            }
        case .totpRecoveryCodes(let id):
            return .later {
                do throws(VerifierError) {
                    let (factor, codes) = try await verifier.replaceTOTPRecoveryCodes(id: id)
                    var json = Self.factorJSON(factor)
                    Self.addStrings("recoveryCodes", codes, to: &json)
                    return Self.factorResponse(json, status: 200, route: route)
                } catch {
                    return Self.factorFailure(error, route: route, metrics: metrics, events: events)
                }
            }
        case .totpFactor(let id):
            return .later {
                do throws(VerifierError) {
                    try await verifier.deleteTOTP(id: id)
                    return HTTPResponse(status: 204, route: route.template, note: APIResponses.loggedID(id))
                } catch {
                    return Self.factorFailure(error, route: route, metrics: metrics, events: events)
                }
            }
        default:
            return .now(APIResponses.error(APIResponses.routeNotFound, route: Route.unmatched))
        }
    }

    /// The answer to a refused factor call, with the store's error logged when it was the cause.
    static func factorFailure(
        _ error: VerifierError, route: Route, metrics: ServerMetrics, events: RequestLog
    ) -> HTTPResponse {
        logCause(of: error, route: route, events: events)
        return failure(factorError(error), route: route, metrics: metrics)
    }

    /// An engine refusal on a factor route, in the factor's words where they differ from a
    /// verification's.
    static func factorError(_ error: VerifierError) -> APIError {
        switch error.kind {
        case .notFound: APIError(code: .notFound, message: "This authenticator was not found.")
        case .locked:
            APIError(code: .locked, message: ScreenText.english.string(.authenticatorLocked), attemptsLeft: 0)
        default: APIError(error)
        }
    }

    /// A factor object: `{"account","attemptsLeft","createdAt","id","issuer","recoveryCodesLeft","status"}`.
    static func factorJSON(_ factor: TOTPFactorView) -> [UInt8] {
        var out: [UInt8] = Array(#"{"account":"#.utf8)
        ResponseJSON.string(factor.account, into: &out)
        out += Array(#","attemptsLeft":\#(factor.attemptsLeft),"createdAt":"#.utf8)
        ResponseJSON.string(ResponseJSON.timestamp(factor.createdAt), into: &out)
        out += Array(#","id":"#.utf8)
        ResponseJSON.string(factor.id, into: &out)
        out += Array(#","issuer":"#.utf8)
        ResponseJSON.string(factor.issuer, into: &out)
        out += Array(#","recoveryCodesLeft":\#(factor.recoveryCodesLeft),"status":"#.utf8)
        ResponseJSON.string(factor.status.rawValue, into: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Adds an array of strings at the end of a JSON object's bytes.
    static func addStrings(_ name: String, _ values: [String], to object: inout [UInt8]) {
        guard object.last == UInt8(ascii: "}") else { return }
        object.removeLast()
        object.append(UInt8(ascii: ","))
        ResponseJSON.string(name, into: &object)
        object += Array(":[".utf8)
        for (index, value) in values.enumerated() {
            if index > 0 { object.append(UInt8(ascii: ",")) }
            ResponseJSON.string(value, into: &object)
        }
        object += Array("]}".utf8)
    }

    static func factorResponse(_ json: [UInt8], status: Int, route: Route) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
            body: json, route: route.template, note: route.factorID.map(APIResponses.loggedID))
    }
}

extension Route {
    /// The factor id in a TOTP route's path.
    var factorID: String? {
        switch self {
        case .totpFactor(let id), .totpCheck(let id), .totpRecover(let id), .totpRecoveryCodes(let id): id
        default: nil
        }
    }
}
