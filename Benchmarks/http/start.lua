-- POST /v1/verifications with a new destination each time, so no per-destination limit repeats.
-- With OTP_BENCH_SPREAD above 1, the starts come from that many addresses in X-Forwarded-For, in
-- turn, as a busy service's users do; else all from the socket's address.
--
-- wrk runs on the server's cores, so with one address its work per request is kept near the bare
-- POST's: the request is formatted once around a placeholder number, and each request only puts
-- its number in (every number has 7 digits, so Content-Length stays right).
local counter = 0
local key = os.getenv("OTP_BENCH_KEY")
local spread = tonumber(os.getenv("OTP_BENCH_SPREAD") or "1") or 1
local thread_id = 0
local mark = "NNNNNNN"
local before, after

function setup(thread)
  thread:set("tid", thread_id)
  thread_id = thread_id + 1
end

function init()
  counter = tid * 5000000
  local headers = { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }
  local template = wrk.format("POST", "/v1/verifications", headers, '{"to":"+1202' .. mark .. '"}')
  local from, to = string.find(template, mark, 1, true)
  before, after = string.sub(template, 1, from - 1), string.sub(template, to + 1)
end

function request()
  counter = counter + 1
  -- Numbers libphonenumber finds valid: area code 202, an exchange from 200 to 999.
  local number = string.format("%07d", 2000000 + counter % 8000000)
  if spread == 1 then return before .. number .. after end
  local n = counter % spread
  local headers = {
    ["Authorization"] = "Bearer " .. key,
    ["Content-Type"] = "application/json",
    ["X-Forwarded-For"] = string.format("10.%d.%d.%d", math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256),
  }
  return wrk.format("POST", "/v1/verifications", headers, '{"to":"+1202' .. number .. '"}')
end
