import OTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Development only: writes each message, code included, to standard error.
///
/// This is the one place in OTPKit where a code is printed, on purpose, so a developer can
/// sign in without a phone. Never use it in production. The destination is masked.
public struct ConsoleSender: ImmediateCodeSender {
    /// How the destination is masked.
    let masking: DestinationMasking

    /// Creates a console sender that masks destinations with `masking`.
    public init(masking: DestinationMasking = .plain) {
        self.masking = masking
    }

    /// Writes the message to standard error.
    public func send(_ message: OutgoingMessage) async throws(DeliveryError) {
        try sendImmediately(message)
    }

    /// Every channel goes out on the caller's thread: standard error is local.
    public func sendsImmediately(_ channel: Channel) -> Bool { true }

    /// Writes the message to standard error, on the caller's thread.
    public func sendImmediately(_ message: OutgoingMessage) throws(DeliveryError) {
        let destination = masking.mask(channel: message.channel, address: message.to)
        let body = message.text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { "  | \($0)" }.joined(separator: "\n")
        let block =
            "[otp dev sender: not for production] \(message.channel.rawValue) to \(destination) "
            + "for \(message.verificationID):\n\(body)\n"
        let bytes = Array(block.utf8)
        let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        guard written >= 0 else { throw DeliveryError("could not write to standard error") }
    }
}
