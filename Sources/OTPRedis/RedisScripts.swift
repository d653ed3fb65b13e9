/// The Lua scripts of ``RedisStore``: each read-modify-write runs inside Redis as one atomic script.
///
/// They follow the rules of `VerificationRecord`'s transitions and `RatePermit`'s GCRA
/// exactly; the shared conformance suite holds them to it. Every time comes in as a
/// millisecond argument, never from Redis's clock. Replies are `{outcome, extra,
/// field, value, …}` with the record's hash fields after the first two.
enum RedisScripts {
    /// Helpers every record script starts with.
    private static let prelude = """
        local function load(key)
          local flat = redis.call('HGETALL', key)
          if #flat == 0 then return nil end
          local r = {}
          for i = 1, #flat, 2 do r[flat[i]] = flat[i + 1] end
          return r
        end
        local function answer(outcome, extra, key)
          local reply = {outcome, extra}
          if key then
            local flat = redis.call('HGETALL', key)
            for i = 1, #flat do reply[#reply + 1] = flat[i] end
          end
          return reply
        end
        local function keep(key, ttl)
          if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, math.max(1, ttl)) end
        end
        local function status(r, now)
          if r.st ~= 'pending' then return r.st end
          if now >= tonumber(r.exp) then return 'expired' end
          if tonumber(r.att) <= 0 then return 'locked' end
          return 'pending'
        end

        """

    /// Writes a lifecycle event to the outbox, once per id, when `evp` (the key prefix) is not empty.
    ///
    /// Keys under `evp`: `ev:ID` the event, `evq:VID` the verification's queue of event ids in order,
    /// `evdue` the verifications whose head event is due (scored by when), `evk:VID` every id noted
    /// for the verification (kept as long as the record), `evn` the count not yet delivered.
    private static let events = """
        local function note(evp, r, kind, at, now)
          if evp == '' then return 0 end
          local id = 'evt_' .. r.id .. '.' .. kind .. '.' .. r.sent
          local known = evp .. 'evk:' .. r.id
          if redis.call('SADD', known, id) == 0 then return 0 end
          redis.call('PEXPIRE', known, math.max(1, tonumber(r.pur) - now))
          redis.call('HSET', evp .. 'ev:' .. id, 'id', id, 'k', kind, 'vid', r.id, 'ch', r.ch,
            'to', r.mto or '', 'at', at, 'f', '0', 'ref', r.ref or '')
          if redis.call('RPUSH', evp .. 'evq:' .. r.id, id) == 1 then
            redis.call('ZADD', evp .. 'evdue', at, r.id)
          end
          redis.call('INCR', evp .. 'evn')
          return 1
        end

        """

    /// How long a record's key outlives its purge time, in milliseconds.
    ///
    /// A purge finds a record's destination in the record itself, to take its id out of the
    /// destination's index; a key Redis had already expired at its purge time would leave that id
    /// behind for as long as the destination keeps being used. The purge deletes the record; the
    /// time-to-live only bounds how long it stays when no purge runs.
    static let recordGraceMilliseconds = 3_600_000

    /// GCRA over several counters, all or none, as `RatePermit.admitAll`.
    ///
    /// `count` keys from `KEYS[first]`, each with its interval and window at
    /// `ARGV[argument + stride × (i − 1)]` and the next argument. Returns the new arrival times (stored), or nil, the longest wait and the
    /// index of its counter.
    private static let permits = """
        local function take(now, first, count, argument, stride)
          local arrivals = {}
          local wait = 0
          local refusing = 0
          if count == 0 then return arrivals end
          -- One MGET for every counter instead of a GET each.
          local stored = redis.call('MGET', unpack(KEYS, first, first + count - 1))
          for i = 1, count do
            local at = argument + stride * (i - 1)
            local interval = tonumber(ARGV[at])
            local window = tonumber(ARGV[at + 1])
            local arrival = math.max(tonumber(stored[i] or now), now) + interval
            local late = arrival - window - now
            if late > 0 then
              if late > wait then
                wait = late
                refusing = i
              end
            else
              arrivals[i] = arrival
            end
          end
          if wait > 0 then return nil, wait, refusing end
          for i = 1, count do
            local key = KEYS[first + i - 1]
            redis.call('SET', key, string.format('%d', arrivals[i]), 'PX', string.format('%d', math.max(1, arrivals[i] - now)))
          end
          return arrivals
        end

        """

    /// A start's one step: a live idempotency key replays, then the permits all or none, then the
    /// record is stored with its claim and its `pending` event.
    ///
    /// KEYS: record, idempotency key (or the record again), record index, key index, the
    /// destination's index (its verifications scored by creation time, kept as long as the latest
    /// of them), then one counter per permit. ARGV: now, claimed ("1"/"0"), fingerprint, claim expiry, record id,
    /// record key prefix, the event prefix (empty: no events), then per permit its interval and its
    /// window, then the record's field pairs. Replies `{'inserted', ''}`, `{'replay', '', 'vid', …,
    /// 'fp', …, 'exp', …}` or `{'denied', 'WAIT:INDEX'}`. Records and keys past their time go when
    /// ``purge`` runs, never here.
    static let start = RedisScript(
        prelude + permits + events + """
            local now = tonumber(ARGV[1])
            local count = #KEYS - 5
            if ARGV[2] == '1' then
              local e = load(KEYS[2])
              if e and tonumber(e.exp) > now then
                return {'replay', '', 'vid', e.vid, 'fp', e.fp, 'exp', e.exp}
              end
            end
            local arrivals, wait, refusing = take(now, 6, count, 8, 2)
            if not arrivals then return {'denied', string.format('%d', wait) .. ':' .. refusing} end
            if ARGV[2] == '1' then
              redis.call('DEL', KEYS[2])
              redis.call('HSET', KEYS[2], 'vid', ARGV[5], 'fp', ARGV[3], 'exp', ARGV[4])
              redis.call('PEXPIRE', KEYS[2], math.max(1, tonumber(ARGV[4]) - now))
              redis.call('ZADD', KEYS[4], ARGV[4], KEYS[2])
            end
            redis.call('DEL', KEYS[1])
            redis.call('HSET', KEYS[1], unpack(ARGV, 8 + 2 * count))
            local purge = tonumber(redis.call('HGET', KEYS[1], 'pur'))
            redis.call('PEXPIRE', KEYS[1], math.max(1, purge - now) + \(recordGraceMilliseconds))
            redis.call('ZADD', KEYS[3], purge, ARGV[5])
            redis.call('ZADD', KEYS[5], redis.call('HGET', KEYS[1], 'cat'), ARGV[5])
            keep(KEYS[5], purge - now + \(recordGraceMilliseconds))
            if ARGV[7] ~= '' then
              local r = load(KEYS[1])
              note(ARGV[7], r, 'pending', ARGV[1], now)
              redis.call('ZADD', ARGV[7] .. 'exp', r.exp, r.id)
            end
            return {'inserted', ''}
            """)

    /// `compare(kept, candidate)`: 0 when two byte strings are equal, else a positive number, in
    /// time that does not depend on where they differ (the sum of the squared byte differences).
    ///
    /// Two 32-byte strings, every code hash, are read into locals and summed in one expression,
    /// with no tables built. Strings of any other length are compared byte by byte, through tables.
    private static let comparison: String = {
        // Building two 32-element tables was a tenth of the check script's time in `redis-server`.
        let kept = (1...32).map { "k\($0)" }.joined(separator: ", ")
        let candidate = (1...32).map { "c\($0)" }.joined(separator: ", ")
        let sum = (1...32).map { "(k\($0) - c\($0)) * (k\($0) - c\($0))" }.joined(separator: " + ")
        return """
            local function compare(a, b)
              if #a == 32 and #b == 32 then
                local \(kept) = string.byte(a, 1, 32)
                local \(candidate) = string.byte(b, 1, 32)
                return \(sum)
              end
              local x = {string.byte(a, 1, -1)}
              local y = {string.byte(b, 1, -1)}
              local diff = 0
              if #x ~= #y then diff = 1 end
              for i = 1, math.min(#x, #y) do
                local d = x[i] - y[i]
                diff = diff + d * d
              end
              return diff
            end

            """
    }()

    /// Judges a check in one step (`VerificationRecord.checkRefusal`, the permits all or none,
    /// `VerificationRecord.check`, then the refunds when approved).
    ///
    /// KEYS: record, then one counter per permit. ARGV: now, the candidate's hash, then per permit
    /// its interval, its window and "1" when it is given back on approval, then the event prefix
    /// (empty: no events).
    ///
    /// It reads only what judging needs, and answers only what the answer says: `{'incorrect',
    /// 'ATTEMPTS'}`, `{'expired', 'ATTEMPTS'}`, `{'rateLimited', 'WAIT:INDEX:ATTEMPTS'}`,
    /// `{'locked', ''}`, `{'notPending', 'ATTEMPTS'}`, `{'notFound', ''}`; an approval carries the whole
    /// record as stored after the step. The hashes are compared byte by byte to the end with
    /// arithmetic only, whatever differs, so the time taken does not depend on where.
    static let check = RedisScript(
        prelude + permits + events + comparison + """
            local now = tonumber(ARGV[1])
            local count = #KEYS - 1
            local evp = ARGV[3 + 3 * count]
            local f = redis.call('HMGET', KEYS[1], 'st', 'exp', 'att', 'hash')
            if not f[1] then return {'notFound', ''} end
            if f[1] ~= 'pending' then return {'notPending', f[3]} end
            if now >= tonumber(f[2]) then return {'expired', f[3]} end
            if tonumber(f[3]) <= 0 then return {'locked', ''} end
            local arrivals, wait, refusing = take(now, 2, count, 3, 3)
            if not arrivals then
              return {'rateLimited', string.format('%d', wait) .. ':' .. refusing .. ':' .. f[3]}
            end
            local left = redis.call('HINCRBY', KEYS[1], 'att', -1)
            local diff = compare(f[4], ARGV[2])
            if diff ~= 0 then
              if left == 0 and evp ~= '' then
                note(evp, load(KEYS[1]), 'max_attempts_reached', ARGV[1], now)
              end
              return {'incorrect', string.format('%d', left)}
            end
            redis.call('HSET', KEYS[1], 'st', 'approved', 'lt', '', 'lu', '')
            if evp ~= '' then note(evp, load(KEYS[1]), 'approved', ARGV[1], now) end
            for i = 1, count do
              if ARGV[3 * i + 2] == '1' then
                local arrival = arrivals[i] - tonumber(ARGV[3 * i])
                if arrival > now then
                  redis.call('SET', KEYS[i + 1], string.format('%d', arrival), 'PX', string.format('%d', arrival - now))
                else
                  redis.call('DEL', KEYS[i + 1])
                end
              end
            end
            return answer('approved', '', KEYS[1])
            """)

    /// Cancels a pending verification.
    ///
    /// KEYS: record. ARGV: the new state, `canceled`; the event prefix (empty: no event) and now.
    static let settle = RedisScript(
        prelude + events + """
            local r = load(KEYS[1])
            if not r then return {'notFound', ''} end
            if r.st ~= 'pending' then return answer('notPending', '', KEYS[1]) end
            redis.call('HSET', KEYS[1], 'st', ARGV[1], 'lt', '', 'lu', '')
            if ARGV[2] ~= '' then note(ARGV[2], r, ARGV[1], ARGV[3], tonumber(ARGV[3])) end
            return answer('done', '', KEYS[1])
            """)

    /// Claims the next send (`VerificationRecord.beginResend`).
    ///
    /// KEYS: record. ARGV: lease token, lease end, max sends, now.
    static let beginResend = RedisScript(
        prelude + """
            local r = load(KEYS[1])
            if not r then return {'notFound', ''} end
            local now = tonumber(ARGV[4])
            if r.st ~= 'pending' then return answer('notPending', '', KEYS[1]) end
            if tonumber(r.sent) >= tonumber(ARGV[3]) then return answer('maxSendsReached', '', KEYS[1]) end
            if r.rav ~= '' and now < tonumber(r.rav) then return answer('tooSoon', r.rav, KEYS[1]) end
            if r.lt ~= '' and now < tonumber(r.lu) then return answer('tooSoon', r.lu, KEYS[1]) end
            redis.call('HSET', KEYS[1], 'lt', ARGV[1], 'lu', ARGV[2])
            return answer('begun', '', KEYS[1])
            """)

    /// Puts a resend's new code in place while its lease is held.
    ///
    /// KEYS: record, record index, the record's delivery attempts. ARGV: token, hash, attempts,
    /// sends, expiry, next resend, purge time, now, id, the event prefix (empty: no events; else the
    /// new expiry joins the sweep's index), the destination indexes' prefix. The attempts and the
    /// destination's index (which takes the record back if it went) are kept as long as the record.
    /// A code that expired before the sweep noted it gets its `expired` now, as the sweep would
    /// have written it.
    static let finishResend = RedisScript(
        prelude + events + """
            local r = load(KEYS[1])
            if not r then return {'notFound', ''} end
            if r.st ~= 'pending' then return answer('notPending', '', KEYS[1]) end
            if r.lt ~= ARGV[1] then return answer('leaseLost', '', KEYS[1]) end
            if tonumber(r.exp) <= tonumber(ARGV[8]) then note(ARGV[10], r, 'expired', r.exp, tonumber(ARGV[8])) end
            redis.call('HSET', KEYS[1], 'hash', ARGV[2], 'att', ARGV[3], 'sent', ARGV[4], 'exp', ARGV[5],
              'rav', ARGV[6], 'pur', ARGV[7], 'lt', '', 'lu', '')
            redis.call('PEXPIRE', KEYS[1],
              math.max(1, tonumber(ARGV[7]) - tonumber(ARGV[8])) + \(recordGraceMilliseconds))
            redis.call('ZADD', KEYS[2], ARGV[7], ARGV[9])
            local ttl = math.max(1, tonumber(ARGV[7]) - tonumber(ARGV[8])) + \(recordGraceMilliseconds)
            if redis.call('EXISTS', KEYS[3]) == 1 then keep(KEYS[3], ttl) end
            -- The destination's index may have gone with its last purge time while this record
            -- outlived it; the record is back in it for as long as it is kept.
            redis.call('ZADD', ARGV[11] .. r.dst, r.cat, ARGV[9])
            keep(ARGV[11] .. r.dst, ttl)
            if ARGV[10] ~= '' then redis.call('ZADD', ARGV[10] .. 'exp', ARGV[5], ARGV[9]) end
            return answer('done', '', KEYS[1])
            """)

    /// Gives up a resend's lease.
    ///
    /// KEYS: record. ARGV: token.
    static let abandonResend = RedisScript(
        prelude + """
            local r = load(KEYS[1])
            if r and r.lt == ARGV[1] then redis.call('HSET', KEYS[1], 'lt', '', 'lu', '') end
            return {'done', ''}
            """)

    /// Frees an idempotency key that still belongs to the verification.
    ///
    /// KEYS: idempotency key, key index. ARGV: verification id.
    static let releaseKey = RedisScript(
        """
        if redis.call('HGET', KEYS[1], 'vid') == ARGV[1] then
          redis.call('DEL', KEYS[1])
          redis.call('ZREM', KEYS[2], KEYS[1])
        end
        return 1
        """)

    /// Takes every rate permit or none (GCRA, as `RatePermit.admit`).
    ///
    /// KEYS: counters. ARGV: now, then interval and window per counter. Takes all or none.
    static let acquire = RedisScript(
        permits + """
                local now = tonumber(ARGV[1])
                local arrivals, wait, refusing = take(now, 1, #KEYS, 2, 2)
                if not arrivals then return {'denied', string.format('%.0f', wait), 'i', tostring(refusing)} end
                return {'allowed', ''}
            """)

    /// Gives rate permits back (as `RatePermit.refund`).
    ///
    /// KEYS: counters. ARGV: now, then the interval per counter.
    static let release = RedisScript(
        """
        local now = tonumber(ARGV[1])
        for i, key in ipairs(KEYS) do
          local stored = redis.call('GET', key)
          if stored then
            local arrival = tonumber(stored) - tonumber(ARGV[i + 1])
            if arrival > now then
              redis.call('SET', key, string.format('%.0f', arrival), 'PX', arrival - now)
            else
              redis.call('DEL', key)
            end
          end
        end
        return 1
        """)

    /// Hands out each due verification's head event, leased until a time.
    ///
    /// ARGV: event prefix, now, lease end, limit. Replies eight fields per event: id, kind,
    /// verification, channel, masked destination, time, failures, the start's ref.
    static let claimEvents = RedisScript(
        """
        local evp = ARGV[1]
        local vids = redis.call('ZRANGEBYSCORE', evp .. 'evdue', '-inf', ARGV[2], 'LIMIT', 0, tonumber(ARGV[4]))
        local reply = {}
        for _, vid in ipairs(vids) do
          local id = redis.call('LINDEX', evp .. 'evq:' .. vid, 0)
          if not id then
            redis.call('ZREM', evp .. 'evdue', vid)
          else
            local e = redis.call('HMGET', evp .. 'ev:' .. id, 'id', 'k', 'vid', 'ch', 'to', 'at', 'f', 'ref')
            if not e[1] then
              -- The event itself is gone (deleted by hand, a partial restore): its id leaves the
              -- queue and the count, and the verification's next event is due at once.
              redis.call('LPOP', evp .. 'evq:' .. vid)
              if redis.call('DECR', evp .. 'evn') < 0 then redis.call('SET', evp .. 'evn', '0') end
              if redis.call('LLEN', evp .. 'evq:' .. vid) == 0 then
                redis.call('ZREM', evp .. 'evdue', vid)
              end
            else
              redis.call('ZADD', evp .. 'evdue', ARGV[3], vid)
              for i = 1, 8 do reply[#reply + 1] = e[i] or '' end
            end
          end
        end
        return reply
        """)

    /// Removes a delivered event; the verification's next event, if any, becomes due.
    ///
    /// ARGV: event prefix, event id.
    static let eventDelivered = RedisScript(
        """
        local evp = ARGV[1]
        local key = evp .. 'ev:' .. ARGV[2]
        local vid = redis.call('HGET', key, 'vid')
        if not vid then return 0 end
        local queue = evp .. 'evq:' .. vid
        redis.call('LREM', queue, 1, ARGV[2])
        redis.call('DEL', key)
        redis.call('DECR', evp .. 'evn')
        local head = redis.call('LINDEX', queue, 0)
        if head then
          redis.call('ZADD', evp .. 'evdue', redis.call('HGET', evp .. 'ev:' .. head, 'at'), vid)
        else
          redis.call('ZREM', evp .. 'evdue', vid)
        end
        return 1
        """)

    /// Counts a failed delivery and sets when the event is due again, while it is its
    /// verification's head event leased until the time given (its score in `evdue`); else nothing.
    ///
    /// ARGV: event prefix, event id, retry time, the lease's end.
    static let eventFailed = RedisScript(
        """
        local evp = ARGV[1]
        local key = evp .. 'ev:' .. ARGV[2]
        local vid = redis.call('HGET', key, 'vid')
        if not vid then return 0 end
        if redis.call('LINDEX', evp .. 'evq:' .. vid, 0) ~= ARGV[2] then return 0 end
        local due = redis.call('ZSCORE', evp .. 'evdue', vid)
        if not due or tonumber(due) ~= tonumber(ARGV[4]) then return 0 end
        redis.call('HINCRBY', key, 'f', 1)
        redis.call('ZADD', evp .. 'evdue', ARGV[3], vid)
        return 1
        """)

    /// Notes `expired` for pending codes past their lifetime, from the index of expiries.
    ///
    /// ARGV: event prefix, now, limit, record key prefix. Returns how many it wrote.
    ///
    /// The limit counts events written, as the other stores' does: entries of verifications
    /// approved or canceled since leave the index without counting, up to ten times the limit in
    /// one call so that the script stays short.
    static let noteExpiries = RedisScript(
        prelude + events + """
            local evp = ARGV[1]
            local now = tonumber(ARGV[2])
            local limit = tonumber(ARGV[3])
            local written = 0
            local scanned = 0
            while written < limit and scanned < 10 * limit do
              local vids = redis.call('ZRANGEBYSCORE', evp .. 'exp', '-inf', ARGV[2], 'LIMIT', 0,
                math.min(limit - written, 10 * limit - scanned))
              if #vids == 0 then break end
              for _, vid in ipairs(vids) do
                scanned = scanned + 1
                redis.call('ZREM', evp .. 'exp', vid)
                local r = load(ARGV[4] .. vid)
                if r and r.st == 'pending' and tonumber(r.exp) <= now then
                  written = written + note(evp, r, 'expired', r.exp, now)
                end
              end
            end
            return written
            """)

    /// Stores a factor whole, replacing any under its key.
    ///
    /// KEYS: factor. ARGV: the factor's field pairs.
    static let insertFactor = RedisScript(
        "redis.call('DEL', KEYS[1]) redis.call('HSET', KEYS[1], unpack(ARGV)) return 1")

    /// Counting a failure of a factor (`TOTPFactor.fail`): the limit-th locks it for the next
    /// duration of the schedule (milliseconds, comma separated) and starts the count again.
    private static let factorRules = """
        local function locked(r, now)
          return r.lku and r.lku ~= '' and now < tonumber(r.lku)
        end
        local function fail(key, r, limit, now, schedule)
          local f = tonumber(r.f) + 1
          if f < math.max(1, tonumber(limit)) then
            redis.call('HSET', key, 'f', f)
            return
          end
          local locks = (tonumber(r.lks or '0') or 0) + 1
          local durations = {}
          for d in string.gmatch(schedule, '[^,]+') do durations[#durations + 1] = tonumber(d) end
          local span = durations[math.min(locks, #durations)]
          redis.call('HSET', key, 'f', '0', 'lks', locks, 'lku', now + span)
        end
        local function find(stored, hash)
          local found = 0
          if not stored then return 0 end
          for i = 1, #stored, 32 do
            local diff = 0
            if #hash ~= 32 then diff = 1 end
            for j = 1, 32 do
              diff = bit.bor(diff, bit.bxor(string.byte(stored, i + j - 1) or 0, string.byte(hash, j) or 0))
            end
            if diff == 0 then found = i end
          end
          return found
        end

        """

    /// Judges an authenticator code (`TOTPFactor.judge`).
    ///
    /// KEYS: factor. ARGV: the matched time step (empty: none), the failure limit, now, the lock schedule.
    static let judgeFactor = RedisScript(
        prelude + factorRules + """
            local r = load(KEYS[1])
            if not r then return {'notFound', ''} end
            local now = tonumber(ARGV[3])
            if locked(r, now) then return answer('locked', '', KEYS[1]) end
            if ARGV[1] == '' then
              fail(KEYS[1], r, ARGV[2], now, ARGV[4])
              return answer('incorrect', '', KEYS[1])
            end
            if r.ls ~= '' and tonumber(ARGV[1]) <= tonumber(r.ls) then
              return answer('alreadyUsed', '', KEYS[1])
            end
            local confirming = '0'
            if r.st == 'unconfirmed' then confirming = '1' end
            redis.call('HSET', KEYS[1], 'ls', ARGV[1], 'f', '0', 'st', 'active', 'lks', '0', 'lku', '')
            return answer('accepted', confirming, KEYS[1])
            """)

    /// Uses a recovery code (`TOTPFactor.recover`); every stored HMAC is compared to the end.
    ///
    /// KEYS: factor. ARGV: the code's HMAC, the failure limit, now, the lock schedule.
    static let recoverFactor = RedisScript(
        prelude + factorRules + """
            local r = load(KEYS[1])
            if not r then return {'notFound', ''} end
            if r.st ~= 'active' then return answer('notActive', '', KEYS[1]) end
            local now = tonumber(ARGV[3])
            local stored = r.rc or ''
            local found = find(stored, ARGV[1])
            if found == 0 then
              if find(r.urc, ARGV[1]) ~= 0 then return answer('alreadyUsed', '', KEYS[1]) end
              if locked(r, now) then return answer('lockedUnknown', '', KEYS[1]) end
              fail(KEYS[1], r, ARGV[2], now, ARGV[4])
              return answer('unknown', '', KEYS[1])
            end
            redis.call('HSET', KEYS[1], 'rc', string.sub(stored, 1, found - 1) .. string.sub(stored, found + 32),
              'urc', (r.urc or '') .. string.sub(stored, found, found + 31), 'f', '0', 'lks', '0', 'lku', '')
            return answer('used', '', KEYS[1])
            """)

    /// Replaces a factor's recovery codes, if it exists.
    ///
    /// KEYS: factor. ARGV: the concatenated HMACs.
    static let replaceRecoveryCodes = RedisScript(
        prelude + """
            if redis.call('EXISTS', KEYS[1]) == 0 then return {'notFound', ''} end
            redis.call('HSET', KEYS[1], 'rc', ARGV[1], 'urc', '')
            return answer('done', '', KEYS[1])
            """)

    /// Deletes one batch of records and idempotency keys whose time has passed.
    ///
    /// KEYS: record index, key index. ARGV: now, record key prefix, batch size, delivery attempts'
    /// key prefix, destination indexes' prefix. A record goes with its attempts and its place in
    /// its destination's index. Returns the records deleted and whether a full batch was taken.
    static let purge = RedisScript(
        """
        local now = ARGV[1]
        local batch = tonumber(ARGV[3])
        local deleted = 0
        local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, batch)
        for _, id in ipairs(ids) do
          local dst = redis.call('HGET', ARGV[2] .. id, 'dst')
          if dst then redis.call('ZREM', ARGV[5] .. dst, id) end
          redis.call('DEL', ARGV[4] .. id)
          deleted = deleted + redis.call('DEL', ARGV[2] .. id)
          redis.call('ZREM', KEYS[1], id)
        end
        local keys = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, batch)
        for _, key in ipairs(keys) do
          redis.call('DEL', key)
          redis.call('ZREM', KEYS[2], key)
        end
        local full = 0
        if #ids == batch or #keys == batch then full = 1 end
        return {deleted, full}
        """)

    /// Keeps a delivery attempt at the end of its verification's list, as long as the record.
    ///
    /// KEYS: record, its attempts. ARGV: now, the attempt. Returns 1, or 0 when the record is gone.
    /// The list's time-to-live only grows: an attempt noted past the record's purge time (a resend
    /// that failed then) stays as long as the record's key does.
    static let noteDelivery = RedisScript(
        """
        local purge = redis.call('HGET', KEYS[1], 'pur')
        if not purge then return 0 end
        redis.call('RPUSH', KEYS[2], ARGV[2])
        local ttl = math.max(1, tonumber(purge) - tonumber(ARGV[1])) + \(recordGraceMilliseconds)
        if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
        return 1
        """)

    /// One destination's verifications, newest first (by creation time, then id), past a cursor and
    /// through the filters.
    ///
    /// KEYS: the destination's index. ARGV: now, the highest creation time (`+inf`, or the cursor's),
    /// the lowest (`-inf`, or `since`), the cursor's id (empty: none), the status (empty: any), the
    /// limit, the record key prefix. Returns each record's hash fields, flat.
    static let search = RedisScript(
        prelude + """
            -- Byte order, as the index orders members with one score: Lua's `<` follows the
            -- server's locale.
            local function less(a, b)
              for i = 1, math.min(#a, #b) do
                local x, y = string.byte(a, i), string.byte(b, i)
                if x ~= y then return x < y end
              end
              return #a < #b
            end
            local now = tonumber(ARGV[1])
            local limit = tonumber(ARGV[6])
            local found = {}
            local offset = 0
            while #found < limit do
              local ids = redis.call('ZREVRANGEBYSCORE', KEYS[1], ARGV[2], ARGV[3], 'WITHSCORES', 'LIMIT', offset, 100)
              if #ids == 0 then break end
              for i = 1, #ids, 2 do
                local id = ids[i]
                local tied = ARGV[4] ~= '' and tonumber(ids[i + 1]) == tonumber(ARGV[2])
                if #found < limit and not (tied and not less(id, ARGV[4])) then
                  local flat = redis.call('HGETALL', ARGV[7] .. id)
                  if #flat > 0 then
                    local r = {}
                    for j = 1, #flat, 2 do r[flat[j]] = flat[j + 1] end
                    if ARGV[5] == '' or status(r, now) == ARGV[5] then found[#found + 1] = flat end
                  end
                end
              end
              offset = offset + 100
            end
            return found
            """)
}
