import Foundation
import OTPCore
import Testing

@testable import OTPEngine

/// The engine's errors: what each one carries, and when two are the same.
@Suite struct VerifierErrorTests {
    @Test("each error keeps the facts it was made with, and only those")
    func facts() {
        let wrong = VerifierError.incorrectCode(attemptsLeft: 2)
        #expect(wrong.kind == .incorrectCode)
        #expect(wrong.attemptsLeft == 2)
        #expect(wrong.retryAfter == nil && wrong.limit == nil && wrong.codeFormat == nil)

        let limited = VerifierError.rateLimited(
            retryAfter: .seconds(30), attemptsLeft: 4, limit: .checksPerAddress)
        #expect(limited.retryAfter == .seconds(30))
        #expect(limited.attemptsLeft == 4)
        #expect(limited.limit == .checksPerAddress)
        #expect(limited.channel == nil && limited.storeError == nil)

        let format = VerifierError.invalidCodeFormat(CodeFormat(length: 8), attemptsLeft: 3)
        #expect(format.codeFormat == CodeFormat(length: 8))

        let delivery = VerifierError.deliveryFailed(.resend, DeliveryError("provider said no"))
        #expect(delivery.step == .resend)
        #expect(delivery.deliveryError == DeliveryError("provider said no"))

        let store = VerifierError.storeUnavailable(StoreError("disk full"))
        #expect(store.storeError == StoreError("disk full"))
        #expect(VerifierError.channelNotSupported(.email).channel == .email)
    }

    @Test("an error is three words, so a check's answer is copied without a call to memcpy")
    func narrow() {
        #expect(MemoryLayout<VerifierError>.size <= 24, "\(MemoryLayout<VerifierError>.size) bytes")
    }

    @Test("negative attempts and waits read as zero")
    func clamped() {
        #expect(VerifierError.incorrectCode(attemptsLeft: -3).attemptsLeft == 0)
        #expect(VerifierError.resendTooSoon(retryAfter: .seconds(-5)).retryAfter == .zero)
    }

    @Test("errors are equal when their kinds and every fact are")
    func equality() {
        #expect(VerifierError.incorrectCode(attemptsLeft: 2) == .incorrectCode(attemptsLeft: 2))
        #expect(VerifierError.incorrectCode(attemptsLeft: 2) != .incorrectCode(attemptsLeft: 1))
        #expect(VerifierError.expired(attemptsLeft: 2) != .incorrectCode(attemptsLeft: 2))
        #expect(
            VerifierError.resendTooSoon(retryAfter: .seconds(3)) == .resendTooSoon(retryAfter: .seconds(3)))
        #expect(
            VerifierError.resendTooSoon(retryAfter: .seconds(3)) != .resendTooSoon(retryAfter: .seconds(4)))
        #expect(
            VerifierError.rateLimited(retryAfter: .seconds(1), limit: .globalSends)
                != .rateLimited(retryAfter: .seconds(1), limit: .sendsPerCallingCode))
        // A fact present on one side only.
        #expect(VerifierError.storeUnavailable() != .storeUnavailable(StoreError("timed out")))
        #expect(VerifierError.storeUnavailable(StoreError("a")) != .storeUnavailable(StoreError("b")))
        #expect(VerifierError.storeUnavailable(StoreError("a")) == .storeUnavailable(StoreError("a")))
        #expect(VerifierError.deliveryFailed(.start) != .deliveryFailed(.resend))
        #expect(VerifierError.channelNotSupported(.sms) != .destinationChannelMismatch(destination: .sms))
    }

    @Test("a copy with the attempts left keeps every other fact")
    func withAttemptsLeft() {
        let limited = VerifierError.rateLimited(retryAfter: .seconds(9), limit: .failedChecksPerDestination)
        let copy = limited.with(attemptsLeft: 3)
        #expect(copy.attemptsLeft == 3)
        #expect(copy.kind == .rateLimited)
        #expect(copy.retryAfter == .seconds(9))
        #expect(copy.limit == .failedChecksPerDestination)
        #expect(copy != limited)
        #expect(
            copy == .rateLimited(retryAfter: .seconds(9), attemptsLeft: 3, limit: .failedChecksPerDestination)
        )
    }

    @Test("the description names the kind and its facts")
    func describes() {
        #expect(VerifierError.incorrectCode(attemptsLeft: 2).description == "incorrectCode attemptsLeft=2")
        #expect(VerifierError.notFound.description == "notFound")
        let limited = VerifierError.rateLimited(retryAfter: .seconds(2), limit: .checksPerAddress)
        #expect(limited.description == "rateLimited retryAfter=2.0 seconds limit=checks_per_address")
    }
}
