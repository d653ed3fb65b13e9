-- POST /v1/verifications with a new destination each time, so no per-destination limit repeats.
-- With OTP_BENCH_SPREAD above 1, the starts come from that many addresses in X-Forwarded-For, in
-- turn, as a busy service's users do; else all from the socket's address.
local counter = 0
local key = os.getenv("OTP_BENCH_KEY")
local spread = tonumber(os.getenv("OTP_BENCH_SPREAD") or "1") or 1
local thread_id = 0

function setup(thread)
  thread:set("tid", thread_id)
  thread_id = thread_id + 1
end

function init()
  counter = tid * 5000000
end

function request()
  counter = counter + 1
  -- Numbers libphonenumber finds valid: area code 202, an exchange from 200 to 999.
  local n = counter % 8000000
  local body = string.format('{"to":"+1202%03d%04d"}', 200 + math.floor(n / 10000), n % 10000)
  local headers = { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }
  if spread > 1 then
    local n = counter % spread
    headers["X-Forwarded-For"] = string.format("10.%d.%d.%d", math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
  end
  return wrk.format("POST", "/v1/verifications", headers, body)
end
