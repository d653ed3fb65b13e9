import Foundation
import OTPCore

/// A ``VerificationService`` that checks an authenticator factor's codes, for `VerificationModel`'s
/// authenticator mode (`showAuthenticator(factorID:attemptsLeft:)`).
///
/// A check answers a verification view of the factor: approved when the code was right, with the
/// failed checks left as `attemptsLeft`. There is nothing to start or resend: both fail with
/// `notFound`, and the screen shows no Resend in this mode.
public struct AuthenticatorService: VerificationService {
    private let client: VerificationClient
    private let now: @Sendable () -> Date

    /// Checks through `client`, which must hold a key that may check factors.
    public init(client: VerificationClient, now: @escaping @Sendable () -> Date = { Date() }) {
        self.client = client
        self.now = now
    }

    /// Not part of this mode.
    public func start(
        to destination: String, channel: Channel?
    ) async throws(VerificationFailure) -> Verification {
        throw .notFound
    }

    /// Checks an authenticator code for the factor `id`.
    public func check(id: String, code: String) async throws(VerificationFailure) -> Verification {
        do throws(ClientError) {
            let factor = try await client.checkTOTP(id: id, code: code)
            return Verification(
                id: factor.id, status: .approved, channel: .sms, to: "", codeLength: 6,
                attemptsLeft: factor.attemptsLeft, sendsLeft: 0, expiresAt: now().addingTimeInterval(3600),
                resendAvailableAt: nil, createdAt: factor.createdAt)
        } catch {
            throw error.failure
        }
    }

    /// Not part of this mode.
    public func resend(id: String) async throws(VerificationFailure) -> Verification {
        throw .notFound
    }
}
