import Foundation

/// One rate limit to pass: a key (already opaque) and the limit that applies to it.
public struct RatePermit: Sendable, Hashable {
    /// The store key, such as `ca:<hex>`; never a raw destination or address.
    public var key: String {
        get { counterKey.key }
        set { counterKey = HashedKey(newValue) }
    }

    /// The key with its hash, worked out once: a permit is made once and judged at every check,
    /// and the memory store looks its counter up by this.
    private(set) var counterKey: HashedKey
    /// The limit for this key.
    public var limit: RateLimit {
        didSet { (intervalMilliseconds, windowMilliseconds) = Self.milliseconds(of: limit) }
    }

    /// The time one request uses up, in milliseconds: the window divided by the limit (at least 1).
    public private(set) var intervalMilliseconds: Int64

    /// The window in milliseconds, and never less than one interval.
    public private(set) var windowMilliseconds: Int64

    /// Creates a permit.
    public init(key: String, limit: RateLimit) {
        self.counterKey = HashedKey(key)
        self.limit = limit
        // Worked out once here, not at every judgement: a check judges its permits twice.
        (intervalMilliseconds, windowMilliseconds) = Self.milliseconds(of: limit)
    }

    private static func milliseconds(of limit: RateLimit) -> (interval: Int64, window: Int64) {
        let window = StoreTime.milliseconds(limit.window)
        let interval = max(1, window / Int64(max(1, limit.limit)))
        return (interval, max(interval, window))
    }

    /// Judges one request against the stored theoretical arrival time (GCRA).
    ///
    /// Each request moves the arrival time one interval later; a request is allowed while
    /// that time stays within one window of now. A burst of `limit` requests passes at
    /// once, then one more each interval. Returns the new arrival time to store, or the
    /// milliseconds to wait.
    public func admit(storedArrival: Int64?, now: Int64) -> Result<Int64, RateDenial> {
        let arrival = max(storedArrival ?? now, now) + intervalMilliseconds
        let wait = arrival - windowMilliseconds - now
        return wait > 0 ? .failure(RateDenial(waitMilliseconds: wait)) : .success(arrival)
    }

    /// Gives one request back: the stored arrival time moves one interval earlier, never before now.
    ///
    /// Returns the arrival time to store, or `nil` when the key can be deleted.
    public func refund(storedArrival: Int64?, now: Int64) -> Int64? {
        guard let storedArrival else { return nil }
        let arrival = storedArrival - intervalMilliseconds
        return arrival > now ? arrival : nil
    }
}

/// A refused request: how long until it would pass.
public struct RateDenial: Error, Sendable, Equatable {
    /// Milliseconds until the request would pass.
    public var waitMilliseconds: Int64

    /// Creates a denial.
    public init(waitMilliseconds: Int64) {
        self.waitMilliseconds = waitMilliseconds
    }
}

extension RatePermit {
    /// Judges permits all or none against their stored arrival times, for a store's atomic step:
    /// the decision, and when allowed the arrival time to store for each key.
    ///
    /// When several are refused, the longest wait wins, and among equal waits the first permit.
    public static func admitAll<Failure: Error>(
        _ permits: [RatePermit], now: Int64, storedArrival: (String) throws(Failure) -> Int64?
    ) throws(Failure) -> (decision: RateDecision, arrivals: [(key: String, arrival: Int64)]) {
        var arrivals: [(key: String, arrival: Int64)] = []
        var longestWait: Int64 = 0
        var refusing = ""
        for permit in permits {
            switch permit.admit(storedArrival: try storedArrival(permit.key), now: now) {
            case .success(let arrival): arrivals.append((permit.key, arrival))
            case .failure(let denial) where denial.waitMilliseconds > longestWait:
                longestWait = denial.waitMilliseconds
                refusing = permit.key
            case .failure: break
            }
        }
        guard longestWait == 0 else { return (.denied(waitMilliseconds: longestWait, key: refusing), []) }
        return (.allowed, arrivals)
    }
}

/// The answer to a set of permits, taken all or none.
public enum RateDecision: Sendable, Equatable {
    /// Every permit was taken.
    case allowed
    /// None was taken; the longest wait among the refused ones, in milliseconds, and the key of the
    /// permit that needs it (the first such permit when several wait as long).
    case denied(waitMilliseconds: Int64, key: String)
}
