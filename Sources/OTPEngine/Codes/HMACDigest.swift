/// A 32-byte HMAC-SHA256 code held inline: making one allocates nothing, where a `[UInt8]` takes
/// an allocation (and a lookup of the array's type) per code.
///
/// A check hashes its candidate code once and the store compares the result with the kept hash;
/// this is the form the candidate travels in between the two.
struct HMACDigest: Sendable, Equatable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// A digest written by `body` into its 32 bytes.
    init(writing body: (UnsafeMutableRawBufferPointer) -> Void) {
        withUnsafeMutableBytes(of: &words) { body($0) }
    }

    /// The 32 bytes of `bytes`, or `nil` when there are not exactly 32.
    init?(_ bytes: [UInt8]) {
        guard bytes.count == HMACSHA256.byteCount else { return nil }
        withUnsafeMutableBytes(of: &words) { $0.copyBytes(from: bytes) }
    }

    /// The bytes, in order.
    var bytes: [UInt8] {
        withUnsafeBytes(of: words) { Array($0) }
    }

    /// Whether `kept` holds the same 32 bytes, taking the same time wherever they differ; only a
    /// length other than 32 answers early (a kept code hash is always 32 bytes).
    func equalsInConstantTime(_ kept: [UInt8]) -> Bool {
        guard kept.count == HMACSHA256.byteCount else { return false }
        return kept.withUnsafeBytes { other in
            let word = { (offset: Int) in other.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
            let difference =
                (words.0 ^ word(0)) | (words.1 ^ word(8)) | (words.2 ^ word(16)) | (words.3 ^ word(24))
            return difference == 0
        }
    }

    static func == (lhs: HMACDigest, rhs: HMACDigest) -> Bool {
        let difference =
            (lhs.words.0 ^ rhs.words.0) | (lhs.words.1 ^ rhs.words.1) | (lhs.words.2 ^ rhs.words.2)
            | (lhs.words.3 ^ rhs.words.3)
        return difference == 0
    }
}

/// A check's candidate hash: an HMAC-SHA256 code inline, or any other byte string as given (which
/// never equals a kept code hash).
enum CandidateHash: Sendable, Equatable {
    case digest(HMACDigest)
    case other([UInt8])

    init(_ bytes: [UInt8]) {
        self = HMACDigest(bytes).map { .digest($0) } ?? .other(bytes)
    }

    var bytes: [UInt8] {
        switch self {
        case .digest(let digest): digest.bytes
        case .other(let bytes): bytes
        }
    }

    /// Whether the kept hash is this one, compared in constant time.
    func matches(_ kept: [UInt8]) -> Bool {
        switch self {
        case .digest(let digest): digest.equalsInConstantTime(kept)
        case .other(let bytes): HMACSHA256.constantTimeEqual(kept, bytes)
        }
    }
}
