import Foundation
import OTPEngine
import Testing

/// A permit's interval and window, worked out when it is made and again when its limit changes;
/// its key, which counts as its text.
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

    @Test("a changed key is the key its counter is kept under; keys made apart with one text share a counter")
    func changedKey() throws {
        let store = MemoryStore()
        let now = Date(timeIntervalSince1970: 1_000_000)
        let once = RateLimit(limit: 1, window: .seconds(60))
        var permit = RatePermit(key: "ca:first", limit: once)
        #expect(try store.acquire([permit], now: now) == .allowed)
        #expect(try store.acquire([permit], now: now) == .denied(waitMilliseconds: 60_000, key: "ca:first"))
        permit.key = "ca:second"
        #expect(permit.key == "ca:second")
        #expect(try store.acquire([permit], now: now) == .allowed)
        // The same text, put together anew: one counter, so refused.
        let again = RatePermit(key: ["ca", "second"].joined(separator: ":"), limit: once)
        #expect(again == permit)
        #expect(try store.acquire([again], now: now) == .denied(waitMilliseconds: 60_000, key: "ca:second"))
    }
}
