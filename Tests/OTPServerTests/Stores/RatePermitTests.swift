import OTPServer
import Testing

/// A permit's interval and window, worked out when it is made and again when its limit changes.
@Suite struct RatePermitTests {
    @Test("interval = window ÷ limit in whole milliseconds, at least 1; the window is never below it")
    func milliseconds() {
        let cases: [(RateLimit, Int64, Int64)] = [
            (RateLimit(limit: 3, window: .seconds(300)), 100_000, 300_000),
            (RateLimit(limit: 0, window: .seconds(60)), 60_000, 60_000),
            (RateLimit(limit: -4, window: .seconds(2)), 2_000, 2_000),
            (RateLimit(limit: 7, window: .milliseconds(20)), 2, 20),
            (RateLimit(limit: 1_000, window: .milliseconds(3)), 1, 3),
            (RateLimit(limit: 5, window: .zero), 1, 1),
        ]
        for (limit, interval, window) in cases {
            let permit = RatePermit(key: "ca:x", limit: limit)
            #expect(permit.intervalMilliseconds == interval, "\(limit)")
            #expect(permit.windowMilliseconds == window, "\(limit)")
        }
    }

    @Test("a changed limit changes the interval and the window, and what the permit admits")
    func changedLimit() {
        var permit = RatePermit(key: "ca:x", limit: RateLimit(limit: 3, window: .seconds(300)))
        #expect(permit.admit(storedArrival: nil, now: 0) == .success(100_000))
        permit.limit = RateLimit(limit: 10, window: .seconds(60))
        #expect(permit.intervalMilliseconds == 6_000 && permit.windowMilliseconds == 60_000)
        #expect(permit.admit(storedArrival: nil, now: 0) == .success(6_000))
        #expect(permit.admit(storedArrival: 60_000, now: 0) == .failure(RateDenial(waitMilliseconds: 6_000)))
        #expect(permit == RatePermit(key: "ca:x", limit: RateLimit(limit: 10, window: .seconds(60))))
    }
}
