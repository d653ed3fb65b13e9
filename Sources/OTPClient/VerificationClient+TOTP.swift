import Foundation
import OTPCore

/// An authenticator-app factor as the server answers it.
public struct TOTPFactorInfo: Sendable, Equatable, Decodable {
    /// `tf_…`.
    public var id: String
    /// `unconfirmed` until a first right code, then `active`.
    public var status: String
    /// The account the authenticator app shows.
    public var account: String
    /// The issuer the authenticator app shows.
    public var issuer: String
    /// Failed checks left before the factor locks.
    public var attemptsLeft: Int
    /// Recovery codes not used yet.
    public var recoveryCodesLeft: Int
    /// When it was enrolled.
    public var createdAt: Date
    /// The `otpauth://` URI, in the enrolment answer only.
    public var otpauthUri: String?
    /// The URI as an SVG QR code, in the enrolment answer only.
    public var qrSvg: String?
    /// Ten recovery codes, in the confirming check's answer and a replacement's only.
    public var recoveryCodes: [String]?
}

extension VerificationClient {
    /// `POST /v1/totp`: enrols a factor; the answer carries the URI and QR code, once.
    public func enrollTOTP(account: String, issuer: String) async throws(ClientError) -> TOTPFactorInfo {
        try await factorCall("POST", "v1/totp", body: ["account": account, "issuer": issuer])
    }

    /// `POST /v1/totp/{id}/check`: judges an authenticator code; the confirming one returns recovery codes.
    public func checkTOTP(id: String, code: String) async throws(ClientError) -> TOTPFactorInfo {
        try await factorCall("POST", "v1/totp/\(try pathSegment(id))/check", body: ["code": code])
    }

    /// `POST /v1/totp/{id}/recover`: uses a recovery code, once.
    public func recoverTOTP(id: String, code: String) async throws(ClientError) -> TOTPFactorInfo {
        try await factorCall("POST", "v1/totp/\(try pathSegment(id))/recover", body: ["code": code])
    }

    /// `POST /v1/totp/{id}/recovery-codes`: replaces every recovery code.
    public func replaceTOTPRecoveryCodes(id: String) async throws(ClientError) -> TOTPFactorInfo {
        try await factorCall("POST", "v1/totp/\(try pathSegment(id))/recovery-codes", body: nil)
    }

    /// `DELETE /v1/totp/{id}`: removes a factor.
    public func deleteTOTP(id: String) async throws(ClientError) {
        _ = try await exchange("DELETE", path: "v1/totp/\(try pathSegment(id))", body: nil)
    }

    private func factorCall(
        _ method: String, _ path: String, body: [String: String]?
    ) async throws(ClientError) -> TOTPFactorInfo {
        let data: Data?
        do {
            data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        } catch {
            throw .invalidResponse("could not encode the request")
        }
        let (answer, status) = try await exchange(method, path: path, body: data)
        do {
            return try WireCoding.decoder().decode(TOTPFactorInfo.self, from: answer)
        } catch {
            throw .invalidResponse("HTTP \(status) without a factor object")
        }
    }
}
