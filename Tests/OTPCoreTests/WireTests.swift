import Foundation
import Testing

@testable import OTPCore

@Suite struct WireTests {
    @Test("the verification object uses the API's field names, status strings and RFC 3339 times")
    func verificationFields() throws {
        let created = Date(timeIntervalSince1970: 1_795_000_000.25)
        let verification = sampleVerification(at: created)
        let data = try WireCoding.encoder().encode(verification)
        let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        #expect(
            Set(object.keys) == [
                "id", "status", "channel", "to", "codeLength", "attemptsLeft", "sendsLeft", "expiresAt",
                "resendAvailableAt", "createdAt",
            ])
        #expect(object["status"] as? String == "pending")
        #expect(object["channel"] as? String == "sms")
        #expect(object["createdAt"] as? String == "2026-11-18T11:06:40.250Z")
        let decoded = try WireCoding.decoder().decode(Verification.self, from: data)
        #expect(decoded == verification)
    }

    @Test("no sends left writes resendAvailableAt as null")
    func nullResend() throws {
        let verification = sampleVerification(sendsLeft: 0, resendIn: nil, at: Date(timeIntervalSince1970: 0))
        let text = String(decoding: try WireCoding.encoder().encode(verification), as: UTF8.self)
        #expect(text.contains("\"resendAvailableAt\":null"))
    }

    @Test("times without fractional seconds decode; other text is refused")
    func timeParsing() throws {
        #expect(WireCoding.parse("2026-11-30T07:00:30Z") == Date(timeIntervalSince1970: 1_796_022_030))
        #expect(WireCoding.parse("2026-11-30T07:00:30.5Z") == Date(timeIntervalSince1970: 1_796_022_030.5))
        #expect(WireCoding.parse("yesterday") == nil)
        let bad =
            Data(#"{"id":"x","status":"pending","channel":"sms","to":"t","codeLength":6,"#.utf8)
            + Data(#""attemptsLeft":3,"sendsLeft":4,"expiresAt":"soon","resendAvailableAt":null,"#.utf8)
            + Data(#""createdAt":"2026-11-30T07:00:30Z"}"#.utf8)
        #expect(throws: DecodingError.self) { try WireCoding.decoder().decode(Verification.self, from: bad) }
    }

    @Test("an unknown status string is refused")
    func unknownStatus() {
        let data = Data(#""frozen""#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(VerificationStatus.self, from: data) }
    }

    @Test("the error body matches the API's shape, nulls included")
    func errorBody() throws {
        let body = APIErrorBody(
            error: APIError(
                code: .incorrectCode, message: "Code doesn't match. 2 attempts left.", attemptsLeft: 2))
        let text = String(decoding: try WireCoding.encoder().encode(body), as: UTF8.self)
        #expect(
            text
                == #"{"error":{"attemptsLeft":2,"code":"incorrect_code","message":"Code doesn't match. 2 attempts left.","retryAfter":null}}"#
        )
        let decoded = try WireCoding.decoder().decode(APIErrorBody.self, from: Data(text.utf8))
        #expect(decoded == body)
        // A reason is written only when there is one.
        let blocked = APIErrorBody(
            error: APIError(
                code: .destinationBlocked, message: "Blocked.", retryAfter: 60, reason: "pumping"))
        let blockedText = String(decoding: try WireCoding.encoder().encode(blocked), as: UTF8.self)
        #expect(
            blockedText
                == #"{"error":{"attemptsLeft":null,"code":"destination_blocked","message":"Blocked.","reason":"pumping","retryAfter":60}}"#
        )
        #expect(try WireCoding.decoder().decode(APIErrorBody.self, from: Data(blockedText.utf8)) == blocked)
    }

    @Test("a refusal with a reason carries it; an error without one has no reason member")
    func errorReason() throws {
        let body = APIErrorBody(
            error: APIError(
                code: .destinationNotAllowed, message: "Codes can't be sent by SMS to this kind of number.",
                reason: "number_type"))
        let text = String(decoding: try WireCoding.encoder().encode(body), as: UTF8.self)
        #expect(
            text
                == #"{"error":{"attemptsLeft":null,"code":"destination_not_allowed","message":"Codes can't be sent by SMS to this kind of number.","reason":"number_type","retryAfter":null}}"#
        )
        #expect(try WireCoding.decoder().decode(APIErrorBody.self, from: Data(text.utf8)) == body)
        #expect(OTPErrorCode.destinationNotAllowed.httpStatus == 422)
    }

    @Test("every error code has the HTTP status of HTTP-API.md (and openapi.yaml for the key codes)")
    func statuses() {
        let expected: [OTPErrorCode: Int] = [
            .unauthorized: 401, .invalidRequest: 400, .invalidDestination: 400, .channelNotSupported: 400,
            .invalidCodeFormat: 400, .notFound: 404, .methodNotAllowed: 405, .notPending: 409, .expired: 410,
            .payloadTooLarge: 413, .incorrectCode: 422, .idempotencyKeyReused: 422, .locked: 423,
            .rateLimited: 429, .resendTooSoon: 429, .maxSendsReached: 429, .deliveryFailed: 502,
            .storeUnavailable: 503, .internalError: 500, .forbidden: 403, .startRefused: 403,
            .codeAlreadyUsed: 409, .notImplemented: 501, .destinationNotAllowed: 422,
            .destinationBlocked: 429,
        ]
        #expect(Set(OTPErrorCode.all) == Set(expected.keys))
        for code in OTPErrorCode.all {
            #expect(code.httpStatus == expected[code], "\(code)")
        }
        #expect(OTPErrorCode(rawValue: "something_new").httpStatus == 500)
    }

    @Test("API errors map to the failures the screen branches on")
    func failures() {
        #expect(
            VerificationFailure(APIError(code: .incorrectCode, message: "", attemptsLeft: 1))
                == .incorrectCode(attemptsLeft: 1))
        #expect(VerificationFailure(APIError(code: .locked, message: "")) == .locked)
        #expect(
            VerificationFailure(APIError(code: .rateLimited, message: "", retryAfter: 9))
                == .rateLimited(retryAfter: 9))
        #expect(
            VerificationFailure(APIError(code: .resendTooSoon, message: "", retryAfter: 3))
                == .resendTooSoon(retryAfter: 3))
        #expect(
            VerificationFailure(APIError(code: .unauthorized, message: "no"))
                == .server(code: .unauthorized, message: "no"))
    }
}
