import Foundation
import OTPCore

extension Verifier {
    /// The guard's subject for a message to `address` by `channel`, or `nil` when the guard does
    /// not look at it: the guard is off, the channel is not SMS, or
    /// the address is one of the policy's test destinations.
    ///
    /// The region is the one the phone number parser reads from the number (an ISO 3166 code with
    /// libphonenumber), given when the caller has it; else the parser is asked, and a parser that
    /// knows no regions leaves the calling code's.
    func fraudSubject(channel: Channel, address: String, region: String? = nil) -> FraudSubject? {
        guard policy.fraudGuard.mode != .off, channel == .sms,
            testCode(for: address) == nil
        else { return nil }
        let known = region ?? phoneNumbers.parse(address, region: nil)?.region
        return FraudSubject(e164: address, channel: channel, region: known)
    }

    /// The bucket of `now` and the window's first bucket, for a tally; with `overDay`, the first
    /// bucket of the counters' reach (a day, or the window if longer) instead of the window's.
    private func fraudTally(
        keys: [String], sends: Int, approvals: Int, blockKeys: [String], skipWhenBlocked: Bool, now: Date,
        overDay: Bool = false
    ) -> FraudTally {
        let guardPolicy = policy.fraudGuard
        let bucketLength = max(1000, StoreTime.milliseconds(guardPolicy.bucketLength))
        let windowLength = max(bucketLength, StoreTime.milliseconds(guardPolicy.window))
        let summed = overDay ? max(windowLength, Self.fraudInsightsReach) : windowLength
        let buckets = max(1, summed / bucketLength)
        let nowMilliseconds = StoreTime.milliseconds(now)
        let bucket = nowMilliseconds - nowMilliseconds % bucketLength
        let kept = max(windowLength, Self.fraudInsightsReach) + bucketLength
        return FraudTally(
            keys: keys, sends: sends, approvals: approvals, bucket: StoreTime.date(milliseconds: bucket),
            windowStart: StoreTime.date(milliseconds: bucket - (buckets - 1) * bucketLength),
            keepUntil: StoreTime.date(milliseconds: bucket + kept), blockKeys: blockKeys,
            skipWhenBlocked: skipWhenBlocked)
    }

    /// How far back the conversion insights reach: buckets are kept a day (or the window, if longer).
    static let fraudInsightsReach: Int64 = 24 * 3600 * 1000

    /// Refuses a start whose prefix or region a live block holds, when the guard is `on`; answers
    /// whether the start, once sent, is counted.
    ///
    /// A safe-listed number passes, and so does a start under a region block whose prefix clears it
    /// (``fraudClearsRegionBlock(_:now:)``). In `shadow` mode the refusal is only reported, and the
    /// start is sent but not counted, so that shadow's counters, and so its decisions, are those `on`
    /// would have. A store that fails here lets the start go on: the guard fails open, and the
    /// start's own store step answers for the store.
    func fraudGate(_ subject: FraudSubject, address: String, now: Date) async throws(VerifierError) -> Bool {
        guard !policy.fraudGuard.isSafe(address) else { return true }
        let regionKey = FraudKey.region(subject)
        let tally = fraudTally(
            keys: [], sends: 0, approvals: 0, blockKeys: [FraudKey.prefix(subject), regionKey],
            skipWhenBlocked: true, now: now)
        guard var blocks = try? await store.tallyFraud(tally, now: now).blocks, !blocks.isEmpty else {
            return true
        }
        if blocks.contains(where: { $0.key == regionKey }), await fraudClearsRegionBlock(subject, now: now) {
            blocks.removeAll { $0.key == regionKey }
        }
        guard let block = blocks.max(by: { $0.until < $1.until }) else { return true }
        let level: FraudDecision.Level = block.key.hasPrefix("r|") ? .region : .prefix
        let mode = policy.fraudGuard.mode
        fraudDecisions(
            FraudDecision(
                action: .refuse, level: level, mode: mode, subject: subject, block: block, judgement: nil,
                at: now))
        guard mode == .on else { return false }
        let wait = StoreTime.milliseconds(block.until) - StoreTime.milliseconds(now)
        throw .destinationBlocked(retryAfter: .milliseconds(max(0, wait)), reason: "pumping")
    }

    /// Whether the subject's prefix passes its region's block.
    ///
    /// Judged on the day's sums of the prefix, the region and every region
    /// (``FraudRule/clearsRegionBlock(prefix:region:all:)``). Asked only under a live region block;
    /// a store that fails here clears the start (the guard fails open).
    func fraudClearsRegionBlock(_ subject: FraudSubject, now: Date) async -> Bool {
        let read = fraudTally(
            keys: [FraudKey.prefix(subject), FraudKey.region(subject), FraudKey.all(subject)], sends: 0,
            approvals: 0, blockKeys: [], skipWhenBlocked: false, now: now, overDay: true)
        guard let counts = try? await store.tallyFraud(read, now: now).counts, counts.count == 3 else {
            return true
        }
        return FraudRule(minSends: policy.fraudGuard.minSends).clearsRegionBlock(
            prefix: counts[0], region: counts[1], all: counts[2])
    }

    /// When a block began: its end less its length (the first block's length doubled per repeat).
    func fraudBlockStart(_ block: FraudBlockState) -> Date {
        let length =
            policy.fraudGuard.blockDuration * (1 << min(block.repeats - 1, FraudBlockState.maxDoublings))
        return StoreTime.date(
            milliseconds: StoreTime.milliseconds(block.until) - StoreTime.milliseconds(length))
    }

    /// Counts a sent start and blocks its prefix (or region) when the rule says so.
    ///
    /// A failure of the store is ignored: the counters miss one send.
    func fraudCountSend(_ subject: FraudSubject, address: String, now: Date) async {
        let prefixKey = FraudKey.prefix(subject)
        let regionKey = FraudKey.region(subject)
        let tally = fraudTally(
            keys: [prefixKey, regionKey, FraudKey.all(subject)], sends: 1, approvals: 0,
            blockKeys: [prefixKey, regionKey], skipWhenBlocked: false, now: now)
        guard let totals = try? await store.tallyFraud(tally, now: now), totals.counts.count == 3 else {
            return
        }
        let guardPolicy = policy.fraudGuard
        let rule = FraudRule(minSends: guardPolicy.minSends)
        let live = Set(totals.blocks.map(\.key))
        let (prefix, region, all) = (totals.counts[0], totals.counts[1], totals.counts[2])
        if !live.contains(prefixKey), !guardPolicy.isSafe(subject.prefix) {
            let judgement = rule.judgePrefix(prefix, region: region)
            if judgement.blocks {
                await fraudBlock(prefixKey, level: .prefix, subject: subject, judgement: judgement, now: now)
            }
        }
        // A region is named by its ISO code (`FR`) when the parser knows it, which no safe-list
        // entry (`+33`) matches; a send whose prefix is safe-listed leaves the region to the next.
        if guardPolicy.blocksRegions, !live.contains(regionKey), !guardPolicy.isSafe(subject.region),
            !guardPolicy.isSafe(subject.prefix)
        {
            let judgement = rule.judgeRegion(region, all: all)
            if judgement.blocks {
                await fraudBlock(regionKey, level: .region, subject: subject, judgement: judgement, now: now)
            }
        }
    }

    /// Asks the store for a block and reports it when this step made it.
    private func fraudBlock(
        _ key: String, level: FraudDecision.Level, subject: FraudSubject, judgement: FraudRule.Judgement,
        now: Date
    ) async {
        let request = FraudBlockRequest(
            key: key, base: policy.fraudGuard.blockDuration, memory: FraudGuardPolicy.blockMemory)
        guard let block = try? await store.blockFraud(request, now: now), block.created else { return }
        fraudDecisions(
            FraudDecision(
                action: .block, level: level, mode: policy.fraudGuard.mode, subject: subject, block: block,
                judgement: judgement, at: now))
    }

    /// Counts an approval of an SMS verification started at `startedAt`.
    ///
    /// A failure of the store is ignored (a failed look at the blocks in `shadow` mode counts the
    /// approval). In `shadow` mode an approval of a start that a block live
    /// at its start would have refused is not counted, as its send was not
    /// (``fraudGate(_:address:now:)``); a region block counts only when the prefix does not clear
    /// it now (``fraudClearsRegionBlock(_:now:)``, asked again at the approval).
    func fraudCountApproval(_ subject: FraudSubject, address: String, startedAt: Date, now: Date) async {
        let keys = [FraudKey.prefix(subject), FraudKey.region(subject), FraudKey.all(subject)]
        if policy.fraudGuard.mode == .shadow, !policy.fraudGuard.isSafe(address) {
            let read = fraudTally(
                keys: [], sends: 0, approvals: 0, blockKeys: Array(keys.prefix(2)), skipWhenBlocked: true,
                now: now)
            // A read that fails counts the approval, as `on` would: the guard fails open.
            if let totals = try? await store.tallyFraud(read, now: now) {
                var held = totals.blocks.filter { fraudBlockStart($0) <= startedAt }
                if held.contains(where: { $0.key == keys[1] }),
                    await fraudClearsRegionBlock(subject, now: now)
                {
                    held.removeAll { $0.key == keys[1] }
                }
                if !held.isEmpty { return }
            }
        }
        let tally = fraudTally(
            keys: keys, sends: 0, approvals: 1, blockKeys: [], skipWhenBlocked: false, now: now)
        _ = try? await store.tallyFraud(tally, now: now)
    }

    /// Sends, approvals and conversion per region, prefix and channel since a time (from the start of
    /// the counter bucket it falls in, a twelfth of the window; at most a day back), read from the
    /// guard's counters; empty when the store keeps none.
    public func conversionInsights(since: Date) async throws(VerifierError) -> ConversionInsights {
        // From the start of the bucket `since` falls in: counters are kept per bucket.
        let bucketLength = max(1000, StoreTime.milliseconds(policy.fraudGuard.bucketLength))
        let sinceMilliseconds = StoreTime.milliseconds(since)
        let from = StoreTime.date(milliseconds: sinceMilliseconds - sinceMilliseconds % bucketLength)
        let counts = try await storeCall { () async throws(StoreError) in
            try await store.fraudCounts(since: from)
        }
        var regions: [ConversionInsights.Row] = []
        var prefixes: [ConversionInsights.Row] = []
        for count in counts {
            let parts = count.key.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard parts.count >= 3, let channel = Channel(rawValue: parts[1]) else { continue }
            let row = ConversionInsights.Row(
                region: parts[2], prefix: parts.count == 4 ? parts[3] : nil, channel: channel,
                sends: count.sends, approvals: count.approvals)
            switch parts[0] {
            case "r" where parts.count == 3: regions.append(row)
            case "p" where parts.count == 4: prefixes.append(row)
            default: continue
            }
        }
        let order: (ConversionInsights.Row, ConversionInsights.Row) -> Bool = {
            ($0.sends, $1.region, $1.prefix ?? "") > ($1.sends, $0.region, $0.prefix ?? "")
        }
        return ConversionInsights(
            since: since, regions: regions.sorted(by: order), prefixes: prefixes.sorted(by: order))
    }
}

/// Sends, approvals and conversion per region and per prefix, as the insights route answers them.
public struct ConversionInsights: Sendable, Equatable {
    /// One region's or one prefix's figures on one channel.
    public struct Row: Sendable, Equatable {
        /// The region.
        public var region: String
        /// The prefix, `nil` for a region's row.
        public var prefix: String?
        /// The channel.
        public var channel: Channel
        /// Starts whose first code was sent.
        public var sends: Int
        /// Those verifications approved.
        public var approvals: Int

        /// Approvals ÷ sends (0 without sends).
        public var conversion: Double { sends == 0 ? 0 : Double(approvals) / Double(sends) }

        /// Creates a row.
        public init(region: String, prefix: String?, channel: Channel, sends: Int, approvals: Int) {
            self.region = region
            self.prefix = prefix
            self.channel = channel
            self.sends = sends
            self.approvals = approvals
        }
    }

    /// The start of the period.
    public var since: Date
    /// The regions, most sends first.
    public var regions: [Row]
    /// The prefixes, most sends first.
    public var prefixes: [Row]

    /// Creates insights.
    public init(since: Date, regions: [Row], prefixes: [Row]) {
        self.since = since
        self.regions = regions
        self.prefixes = prefixes
    }
}
