import Foundation
import OTPCore
import OTPEngine

// The pumping guard's counters and blocks: per counter key two hashes of time buckets (`fs:KEY`
// sends, `fa:KEY` approvals), per block key a hash (`fb:KEY`), and the set `fkeys` of counter keys
// for the insights; each step one Lua script.

extension RedisStore {
    /// Adds a tally to its buckets and answers the window's sums and live blocks, in one script.
    public func tallyFraud(_ tally: FraudTally, now: Date) async throws(StoreError) -> FraudTotals {
        let keys =
            tally.keys.flatMap { [prefix + "fs:" + $0, prefix + "fa:" + $0] }
            + tally.blockKeys.map { prefix + "fb:" + $0 } + [prefix + "fkeys", prefix + "fbuckets"]
        let arguments: [[UInt8]] =
            [
                Self.time(now), Self.time(tally.bucket), Self.time(tally.windowStart),
                Self.time(tally.keepUntil),
                Array(String(tally.sends).utf8), Array(String(tally.approvals).utf8),
                Array((tally.skipWhenBlocked ? "1" : "0").utf8), Array(String(tally.keys.count).utf8),
                Array(String(tally.blockKeys.count).utf8),
            ] + tally.keys.map { Array($0.utf8) }
        let reply = try await evaluate(RedisScripts.fraudTally, keys: keys, arguments: arguments)
        guard case .array(let parts) = reply,
            parts.count == 1 + 2 * tally.keys.count + 3 * tally.blockKeys.count,
            case .integer(let added) = parts[0]
        else { throw Self.failure(reply) }
        var counts: [FraudCount] = []
        for (index, key) in tally.keys.enumerated() {
            guard case .integer(let sends) = parts[1 + 2 * index],
                case .integer(let approvals) = parts[2 + 2 * index]
            else { throw Self.failure(reply) }
            counts.append(FraudCount(key: key, sends: Int(sends), approvals: Int(approvals)))
        }
        var blocks: [FraudBlockState] = []
        let base = 1 + 2 * tally.keys.count
        for (index, key) in tally.blockKeys.enumerated() {
            guard case .integer(let until) = parts[base + 3 * index],
                case .integer(let repeats) = parts[base + 3 * index + 1],
                case .integer(let forget) = parts[base + 3 * index + 2]
            else { throw Self.failure(reply) }
            if until > StoreTime.milliseconds(now) {
                blocks.append(
                    FraudBlockState(
                        key: key, until: StoreTime.date(milliseconds: until), repeats: Int(repeats),
                        forgetAt: StoreTime.date(milliseconds: forget), created: false))
            }
        }
        return FraudTotals(counts: counts, blocks: blocks, added: added == 1)
    }

    /// Blocks a key unless a live block holds it, in one script.
    public func blockFraud(
        _ request: FraudBlockRequest, now: Date
    ) async throws(StoreError) -> FraudBlockState {
        let reply = try await evaluate(
            RedisScripts.fraudBlock, keys: [prefix + "fb:" + request.key],
            arguments: [
                Self.time(now), Array(String(StoreTime.milliseconds(request.base)).utf8),
                Array(String(StoreTime.milliseconds(request.memory)).utf8),
                Array(String(FraudBlockState.maxDoublings).utf8),
            ])
        guard case .array(let parts) = reply, parts.count == 4, case .integer(let until) = parts[0],
            case .integer(let repeats) = parts[1], case .integer(let forget) = parts[2],
            case .integer(let created) = parts[3]
        else { throw Self.failure(reply) }
        return FraudBlockState(
            key: request.key, until: StoreTime.date(milliseconds: until), repeats: Int(repeats),
            forgetAt: StoreTime.date(milliseconds: forget), created: created == 1)
    }

    /// Drops the guard's buckets past their keep-until time, a thousand a script.
    func purgeFraud(now: Date) async throws(StoreError) {
        while true {
            let reply = try await evaluate(
                RedisScripts.fraudPurge, keys: [prefix + "fbuckets", prefix + "fkeys"],
                arguments: [Self.time(now), Array(prefix.utf8)])
            guard case .integer(let count) = reply else { throw Self.failure(reply) }
            if count < 1000 { return }
        }
    }

    /// Each key's sums since a time.
    public func fraudCounts(since: Date) async throws(StoreError) -> [FraudCount] {
        let reply = try await evaluate(
            RedisScripts.fraudCounts, keys: [prefix + "fkeys"],
            arguments: [Self.time(since), Array(prefix.utf8)])
        guard case .array(let parts) = reply, parts.count % 3 == 0 else { throw Self.failure(reply) }
        var counts: [FraudCount] = []
        for index in stride(from: 0, to: parts.count, by: 3) {
            guard case .string(let key) = parts[index], case .integer(let sends) = parts[index + 1],
                case .integer(let approvals) = parts[index + 2]
            else { throw Self.failure(reply) }
            counts.append(FraudCount(key: Self.text(key), sends: Int(sends), approvals: Int(approvals)))
        }
        return counts.sorted { $0.key < $1.key }
    }
}

extension RedisScripts {
    /// A pumping-guard tally.
    ///
    /// KEYS: per counter key its sends and approvals hashes, then each block
    /// key's hash, then the set of counter keys, then the buckets by when they may go (`KEY\nBUCKET`
    /// scored by their keep-until time, for ``fraudPurge``). ARGV: now, bucket, window start, keep until, sends,
    /// approvals, skip when blocked ("1"/"0"), the number of counter keys, of block keys, then the
    /// counter keys. Replies added (1/0), each counter's sends and approvals, each block's until,
    /// repeats and forget time (0 0 0 when none).
    static let fraudTally = RedisScript(
        """
        local now = tonumber(ARGV[1])
        local bucket = ARGV[2]
        local from = tonumber(ARGV[3])
        local keep = tonumber(ARGV[4])
        local retention = keep - tonumber(bucket)
        local counters = tonumber(ARGV[8])
        local blocks = tonumber(ARGV[9])
        local out = {0}
        local live = false
        local blockOut = {}
        for i = 1, blocks do
          local b = redis.call('HMGET', KEYS[2 * counters + i], 'until', 'repeats', 'forget')
          if b[1] then
            local untilTime = tonumber(b[1])
            if untilTime > now then live = true end
            table.insert(blockOut, untilTime)
            table.insert(blockOut, tonumber(b[2]))
            table.insert(blockOut, tonumber(b[3]))
          else
            table.insert(blockOut, 0)
            table.insert(blockOut, 0)
            table.insert(blockOut, 0)
          end
        end
        local adding = not (ARGV[7] == '1' and live) and (ARGV[5] ~= '0' or ARGV[6] ~= '0')
        if adding then out[1] = 1 end
        for i = 1, counters do
          local sums = {0, 0}
          for j = 1, 2 do
            local key = KEYS[2 * i - 2 + j]
            if adding then
              redis.call('HINCRBY', key, bucket, tonumber(ARGV[4 + j]))
              redis.call('PEXPIRE', key, math.max(1, keep - now))
            end
            local fields = redis.call('HGETALL', key)
            for f = 1, #fields, 2 do
              local at = tonumber(fields[f])
              if at + retention <= now then
                redis.call('HDEL', key, fields[f])
              elseif at >= from then
                sums[j] = sums[j] + tonumber(fields[f + 1])
              end
            end
          end
          if adding then
            redis.call('SADD', KEYS[#KEYS - 1], ARGV[9 + i])
            redis.call('ZADD', KEYS[#KEYS], keep, ARGV[9 + i] .. '\\n' .. bucket)
          end
          table.insert(out, sums[1])
          table.insert(out, sums[2])
        end
        for _, v in ipairs(blockOut) do table.insert(out, v) end
        return out
        """)

    /// A pumping-guard block, as `FraudBlockState.next`.
    ///
    /// KEYS: the block's hash. ARGV: now, the first
    /// block's length, the memory after it, the most doublings. Replies until, repeats, forget time,
    /// created (1/0).
    static let fraudBlock = RedisScript(
        """
        local now = tonumber(ARGV[1])
        local b = redis.call('HMGET', KEYS[1], 'until', 'repeats', 'forget')
        if b[1] and tonumber(b[1]) > now then
          return {tonumber(b[1]), tonumber(b[2]), tonumber(b[3]), 0}
        end
        local repeats = 1
        if b[3] and tonumber(b[3]) > now then repeats = tonumber(b[2]) + 1 end
        local untilTime = now + tonumber(ARGV[2]) * 2 ^ math.min(repeats - 1, tonumber(ARGV[4]))
        local forget = untilTime + tonumber(ARGV[3])
        redis.call('HSET', KEYS[1], 'until', string.format('%d', untilTime), 'repeats', repeats,
          'forget', string.format('%d', forget))
        redis.call('PEXPIRE', KEYS[1], string.format('%d', math.max(1, forget - now)))
        return {untilTime, repeats, forget, 1}
        """)

    /// Buckets past their keep-until time, as of the store's `now`.
    ///
    /// Redis's own expiry follows the real clock; this follows the store's times. KEYS: the buckets by keep-until
    /// time, the set of counter keys. ARGV: now, the store's key prefix. Replies how many buckets went.
    static let fraudPurge = RedisScript(
        """
        local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1000)
        for _, member in ipairs(due) do
          local cut = string.find(member, '\\n', 1, true)
          local name = string.sub(member, 1, cut - 1)
          local bucket = string.sub(member, cut + 1)
          redis.call('HDEL', ARGV[2] .. 'fs:' .. name, bucket)
          redis.call('HDEL', ARGV[2] .. 'fa:' .. name, bucket)
          redis.call('ZREM', KEYS[1], member)
          if redis.call('EXISTS', ARGV[2] .. 'fs:' .. name, ARGV[2] .. 'fa:' .. name) == 0 then
            redis.call('SREM', KEYS[2], name)
          end
        end
        return #due
        """)

    /// Every counter's sums since a time.
    ///
    /// KEYS: the set of counter keys. ARGV: since, the store's key
    /// prefix. Replies key, sends, approvals for each key with any; keys whose hashes are gone leave
    /// the set.
    static let fraudCounts = RedisScript(
        """
        local from = tonumber(ARGV[1])
        local out = {}
        for _, name in ipairs(redis.call('SMEMBERS', KEYS[1])) do
          local sums = {0, 0}
          local exists = 0
          for j, kind in ipairs({'fs:', 'fa:'}) do
            local key = ARGV[2] .. kind .. name
            exists = exists + redis.call('EXISTS', key)
            local fields = redis.call('HGETALL', key)
            for f = 1, #fields, 2 do
              if tonumber(fields[f]) >= from then sums[j] = sums[j] + tonumber(fields[f + 1]) end
            end
          end
          if exists == 0 then
            redis.call('SREM', KEYS[1], name)
          elseif sums[1] > 0 or sums[2] > 0 then
            table.insert(out, name)
            table.insert(out, sums[1])
            table.insert(out, sums[2])
          end
        end
        return out
        """)
}
