-- POST /v1/verifications with a new destination each time, so no per-destination limit repeats.
local counter = 0
local key = os.getenv("OTP_BENCH_KEY")
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
  local body = string.format('{"to":"+1202%07d"}', counter % 10000000)
  return wrk.format("POST", "/v1/verifications",
    { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }, body)
end
