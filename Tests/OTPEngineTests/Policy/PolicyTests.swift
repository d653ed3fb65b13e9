import OTPCore
import OTPEngine
import Testing

@Suite struct PolicyTests {
    @Test("the defaults are those of the screen's design")
    func defaults() {
        let policy = Policy.default
        #expect(policy.codeLength == 6)
        #expect(policy.maxAttempts == 3)
        #expect(policy.codeLifetime == .seconds(300))
        #expect(policy.resendCooldowns == [.seconds(30), .seconds(60), .seconds(120), .seconds(300)])
        #expect(policy.maxSends == 5)
        #expect(policy.guessBudget == 15)
        #expect(policy.weakSettings().isEmpty)
        #expect(policy.problems().isEmpty)
    }

    @Test("cooldowns follow the sends and the last one repeats")
    func cooldowns() {
        let policy = Policy.default
        #expect(
            (1...6).map { policy.cooldown(afterSend: $0) }
                == [30, 60, 120, 300, 300, 300].map { .seconds($0) })
        var none = policy
        none.resendCooldowns = []
        #expect(none.cooldown(afterSend: 1) == .zero)
    }

    @Test("weak settings are named: many attempts, long lifetimes, short codes, many sends")
    func weakSettings() {
        var policy = Policy.default
        policy.maxAttempts = 11
        policy.codeLifetime = .seconds(601)
        policy.codeLength = 4
        policy.maxSends = 11
        let warnings = policy.weakSettings()
        #expect(warnings.count == 4)
        #expect(warnings.contains { $0.hasPrefix("maxAttempts is 11") })
        #expect(warnings.contains { $0.hasPrefix("codeLifetime is 601 s") })
        #expect(warnings.contains { $0.hasPrefix("codeLength is 4") })
        #expect(warnings.contains { $0.hasPrefix("maxSends is 11") })

        var edge = Policy.default
        edge.maxAttempts = 10
        edge.codeLifetime = .seconds(600)
        #expect(edge.weakSettings().isEmpty)
    }

    @Test("settings that cannot work are problems")
    func problems() {
        var policy = Policy.default
        policy.maxAttempts = 0
        policy.maxSends = 0
        policy.codeLifetime = .zero
        policy.channels = []
        policy.androidAppHash = "short"
        policy.domain = "exa mple.com"
        #expect(policy.problems().count == 6)

        var long = Policy.default
        long.domain = String(repeating: "d", count: 120) + ".com"
        #expect(long.problems().contains { $0.contains("140-byte") })
    }

    @Test("every number has an upper bound, so nothing configured can overflow later")
    func upperBounds() {
        let changes: [(String, (inout Policy) -> Void)] = [
            ("maxAttempts", { $0.maxAttempts = 1_000_001 }),
            ("maxSends", { $0.maxSends = 1_000_001 }),
            ("codeLifetime", { $0.codeLifetime = .seconds(31_536_001) }),
            ("resendCooldowns", { $0.resendCooldowns = [.seconds(9_999_999_999_999_999)] }),
            ("resendCooldowns", { $0.resendCooldowns = Array(repeating: .seconds(1), count: 65) }),
            (
                "startsPerAddress",
                { $0.startsPerAddress = RateLimit(limit: 1_000_000_001, window: .seconds(60)) }
            ),
            ("checksPerAddress", { $0.checksPerAddress = RateLimit(limit: 5, window: .seconds(31_536_001)) }),
            ("globalSendsPerHour", { $0.globalSendsPerHour = Int(Int32.max) + 1 }),
            ("retention", { $0.retention = .seconds(31_536_001) }),
        ]
        for (name, change) in changes {
            var policy = Policy.default
            change(&policy)
            #expect(policy.problems().count == 1, "\(name)")
            #expect(policy.problems().first?.hasPrefix(name) == true, "\(name)")
        }
        var edge = Policy.default
        edge.maxAttempts = 1_000_000
        edge.resendCooldowns = Array(repeating: .seconds(31_536_000), count: 64)
        edge.globalSendsPerHour = Int(Int32.max)
        #expect(edge.problems().isEmpty)
    }

    @Test("a long app name is cut in SMS, with a warning")
    func longAppName() {
        var policy = Policy.default
        policy.appName = String(repeating: "Name ", count: 30)
        policy.domain = "example.com"
        #expect(policy.problems().isEmpty)
        #expect(policy.weakSettings().contains { $0.hasPrefix("appName is cut") })
    }
}
