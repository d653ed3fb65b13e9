import Foundation
import OTPCore

/// A TOTP factor as the API shows it: never its secret or recovery codes.
public struct TOTPFactorView: Sendable, Equatable {
    /// `tf_` and 22 URL-safe characters.
    public var id: String
    /// Unconfirmed until a first right code.
    public var status: TOTPFactor.Status
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
    /// When the lock from wrong codes lifts, or `nil` when the factor is not locked.
    public var lockedUntil: Date?
}

/// What enrolling a factor gives back, once: the URI (and so the secret) for the authenticator app.
public struct TOTPEnrollment: Sendable, Equatable {
    /// The new, unconfirmed factor.
    public var factor: TOTPFactorView
    /// `otpauth://totp/…` with the secret, RFC 6238 defaults (SHA-1, 6 digits, 30 s).
    public var otpauthURI: String
}

extension Verifier {
    /// The prefix of factor identifiers.
    public static let factorPrefix = "tf_"

    /// How many recovery codes a factor gets.
    public static let recoveryCodeCount = 10

    /// Why an account or issuer cannot name a factor, or `nil` when both can.
    ///
    /// The account is 1 to 256 characters, the issuer 1 to 128 without a colon (which separates
    /// them in the authenticator's label); neither has control characters.
    public static func factorNameProblem(account: String, issuer: String) -> String? {
        func clean(_ text: String) -> Bool {
            !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
        }
        guard (1...256).contains(account.count), clean(account) else {
            return "\"account\" must be 1 to 256 characters without control characters."
        }
        guard (1...128).contains(issuer.count), clean(issuer), !issuer.contains(":") else {
            return "\"issuer\" must be 1 to 128 characters without a colon or control characters."
        }
        return nil
    }

    /// Enrolls a factor: a fresh 160-bit secret, sealed at rest; the factor waits for a first right code.
    public func enrollTOTP(account: String, issuer: String) async throws(VerifierError) -> TOTPEnrollment {
        let now = currentTime()
        let id = random.withGenerator {
            Self.factorPrefix + VerificationID.base64URL(CodeGenerator.bytes(count: 16, using: &$0))
        }
        let secret = random.withGenerator { CodeGenerator.bytes(count: 20, using: &$0) }
        guard
            let sealed = random.withGenerator({
                SecretBox.seal(secret, key: factorBoxKey, context: Array(id.utf8), using: &$0)
            })
        else { throw .internalFailure }
        let factor = TOTPFactor(
            id: id, account: account, issuer: issuer, sealedSecret: sealed, createdAt: now)
        try await storeCall { () async throws(StoreError) in try await store.insertFactor(factor) }
        return TOTPEnrollment(
            factor: view(factor),
            otpauthURI: TOTP(secret: secret).provisioningURI(account: account, issuer: issuer))
    }

    /// Checks an authenticator code: ±1 time step, each step accepted once, consecutive failures lock.
    ///
    /// The first right code makes the factor active and returns its recovery codes, shown only then.
    /// Answers as a verification check does: `notFound`, `locked`, `rateLimited` (checks per client
    /// address), `invalidCodeFormat` (no failure counted), `incorrectCode` with the attempts left,
    /// and `codeAlreadyUsed` for a replay.
    public func checkTOTP(
        id: String, code: String, clientAddress: String
    ) async throws(VerifierError) -> (factor: TOTPFactorView, recoveryCodes: [String]?) {
        let now = currentTime()
        let factor = try await loadFactor(id, from: store, at: now)
        let left = attemptsLeft(factor)
        try await admitCheck(clientAddress: clientAddress, now: now, attemptsLeft: left)
        let format = CodeFormat(length: 6, kind: .digits)
        guard let candidate = CodeNormalizer.wholeCode(code, for: format) else {
            throw .invalidCodeFormat(format, attemptsLeft: left)
        }
        guard let secret = SecretBox.open(factor.sealedSecret, key: factorBoxKey, context: Array(id.utf8))
        else {
            throw .internalFailure
        }
        let step = TOTP(secret: secret).matchingStep(for: candidate, at: now, window: 1, after: nil)
        let judgement = try await storeCall { () async throws(StoreError) in
            try await store.judgeFactor(
                id: id, matchedStep: step, maxFailures: policy.totpMaxFailures, now: now)
        }
        switch judgement {
        case .notFound: throw .notFound
        case .locked: throw .locked
        case .alreadyUsed: throw .codeAlreadyUsed
        case .incorrect(let counted): throw .incorrectCode(attemptsLeft: attemptsLeft(counted, at: now))
        case .accepted(let accepted, let confirmed):
            guard confirmed else { return (view(accepted), nil) }
            let (codes, hashes) = newRecoveryCodes(for: id)
            let stored = try await storeCall { () async throws(StoreError) in
                try await store.replaceRecoveryCodes(id: id, hashes: hashes)
            }
            return (view(stored ?? accepted), codes)
        }
    }

    /// Uses a recovery code once, also on a factor locked by wrong codes (it lifts the lock); a
    /// wrong one counts as a failed check (on a locked factor it is `locked` and counts nothing), a
    /// used one is a replay (`codeAlreadyUsed`, nothing
    /// counted), and a factor not confirmed yet takes none (`factorNotConfirmed`).
    public func recoverTOTP(
        id: String, code: String, clientAddress: String
    ) async throws(VerifierError) -> TOTPFactorView {
        let now = currentTime()
        let factor = try await loadFactor(id, from: store, at: now, refusingLocked: false)
        guard factor.status == .active else { throw .factorNotConfirmed }
        try await admitCheck(
            clientAddress: clientAddress, now: now, attemptsLeft: attemptsLeft(factor, at: now))
        let hash = recoveryHash(id: id, code: Self.normalizedRecoveryCode(code))
        let recovery = try await storeCall { () async throws(StoreError) in
            try await store.recoverFactor(id: id, hash: hash, maxFailures: policy.totpMaxFailures, now: now)
        }
        switch recovery {
        case .notFound: throw .notFound
        case .notActive: throw .factorNotConfirmed
        case .alreadyUsed: throw .codeAlreadyUsed
        case .unknown(let counted): throw .incorrectCode(attemptsLeft: attemptsLeft(counted, at: now))
        case .lockedUnknown: throw .locked
        case .used(let used): return view(used)
        }
    }

    /// Replaces every recovery code of a factor, also a locked one; returns the new ones.
    ///
    /// The new codes are shown only here. A factor not confirmed yet has none to replace
    /// (`factorNotConfirmed`).
    public func replaceTOTPRecoveryCodes(id: String) async throws(VerifierError) -> (TOTPFactorView, [String])
    {
        let factor = try await loadFactor(id, from: store, at: currentTime(), refusingLocked: false)
        guard factor.status == .active else { throw .factorNotConfirmed }
        let (codes, hashes) = newRecoveryCodes(for: id)
        let stored = try await storeCall { () async throws(StoreError) in
            try await store.replaceRecoveryCodes(id: id, hashes: hashes)
        }
        guard let stored else { throw .notFound }
        return (view(stored), codes)
    }

    /// Removes a factor.
    public func deleteTOTP(id: String) async throws(VerifierError) {
        guard Self.isFactorID(id) else { throw .notFound }
        let deleted = try await storeCall { () async throws(StoreError) in
            try await store.deleteFactor(id: id)
        }
        guard deleted else { throw .notFound }
    }

    /// A recovery code as it is compared: lower case, letters and digits only.
    static func normalizedRecoveryCode(_ code: String) -> String {
        String(
            code.lowercased().unicodeScalars.filter {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
            })
    }

    // MARK: - Parts

    private static func isFactorID(_ id: String) -> Bool {
        id.hasPrefix(factorPrefix) && id.utf8.count == factorPrefix.utf8.count + 22
            && VerificationID.isWellFormed(id)
    }

    private func loadFactor(
        _ id: String, from store: any TOTPFactorStore, at now: Date, refusingLocked: Bool = true
    ) async throws(VerifierError) -> TOTPFactor {
        guard Self.isFactorID(id) else { throw .notFound }
        let found = try await storeCall { () async throws(StoreError) in try await store.factor(id: id) }
        guard let found else { throw .notFound }
        if refusingLocked, found.isLocked(at: now) { throw .locked }
        return found
    }

    /// Takes the per-address check permit every check takes.
    private func admitCheck(clientAddress: String, now: Date, attemptsLeft: Int) async throws(VerifierError) {
        let permit = RatePermit(
            key: try limitKey("ca", ClientAddress.limitKey(clientAddress)), limit: policy.checksPerAddress)
        do {
            try await acquire([permit], now: now)
        } catch {
            throw error.with(attemptsLeft: attemptsLeft)
        }
    }

    /// Failed checks left before the factor locks; none while it is locked.
    private func attemptsLeft(_ factor: TOTPFactor, at now: Date? = nil) -> Int {
        if factor.isLocked(at: now ?? currentTime()) { return 0 }
        return max(0, policy.totpMaxFailures - factor.failures)
    }

    private func view(_ factor: TOTPFactor) -> TOTPFactorView {
        TOTPFactorView(
            id: factor.id, status: factor.status, account: factor.account, issuer: factor.issuer,
            attemptsLeft: attemptsLeft(factor), recoveryCodesLeft: factor.recoveryHashes.count,
            createdAt: factor.createdAt, lockedUntil: factor.lockedUntil)
    }

    /// Ten fresh codes of ten characters (50 bits each), shown as `xxxxx-xxxxx`, and their HMACs.
    private func newRecoveryCodes(for id: String) -> ([String], [[UInt8]]) {
        let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")
        let codes = random.withGenerator { generator in
            (0..<Self.recoveryCodeCount).map { _ in
                let characters = (0..<10).map { _ in
                    alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
                }
                return String(characters.prefix(5)) + "-" + String(characters.suffix(5))
            }
        }
        return (codes, codes.map { recoveryHash(id: id, code: Self.normalizedRecoveryCode($0)) })
    }

    private func recoveryHash(id: String, code: String) -> [UInt8] {
        hasher.mac(Array("otpkit recovery v1\u{0}\(id)\u{0}\(code)".utf8))
    }
}
