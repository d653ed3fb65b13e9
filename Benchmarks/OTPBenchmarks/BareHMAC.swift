import OTPEngine

/// HMAC-SHA256 with nothing around it: the benchmark's measure of a check's one unavoidable cost.
///
/// The server's prepared key, writing each code to the stack, where the server's array-returning
/// call allocates one per code.
struct BareHMAC: Sendable {
    private let key: HMACSHA256.Key

    init(key: [UInt8]) {
        self.key = HMACSHA256.Key(key)
    }

    /// The first byte of `message`'s code, so that the work cannot be left out.
    func firstByte(of message: [UInt8]) -> UInt8 {
        var code: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &code) { code in
            message.withUnsafeBytes { key.authenticationCode($0, into: code) }
        }
        return UInt8(truncatingIfNeeded: code.0)
    }
}
