-- POST /v1/verifications/{id}/check with a wrong code: every request takes an attempt and is judged.
-- With OTP_BENCH_ID_FILE (one verification id a line), requests go round its ids, each id's checks
-- from an address of its own in X-Forwarded-For, as many users checking their own codes do;
-- without it, every request checks OTP_BENCH_ID from the socket's address.
local key = os.getenv("OTP_BENCH_KEY")
local id = os.getenv("OTP_BENCH_ID")
local code = os.getenv("OTP_BENCH_CODE")
local id_file = os.getenv("OTP_BENCH_ID_FILE")
wrk.method = "POST"
wrk.path = "/v1/verifications/" .. id .. "/check"
wrk.headers["Authorization"] = "Bearer " .. key
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"code":"' .. code .. '"}'

if id_file ~= nil and id_file ~= "" then
  local ids = {}
  for line in io.lines(id_file) do ids[#ids + 1] = line end
  local counter = 0
  local thread_id = 0

  function setup(thread)
    thread:set("tid", thread_id)
    thread_id = thread_id + 1
  end

  function init()
    counter = tid * 7919
  end

  function request()
    counter = counter + 1
    local n = counter % #ids
    local headers = {
      ["Authorization"] = "Bearer " .. key,
      ["Content-Type"] = "application/json",
      ["X-Forwarded-For"] = string.format("10.%d.%d.%d", math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256),
    }
    return wrk.format("POST", "/v1/verifications/" .. ids[n + 1] .. "/check", headers, wrk.body)
  end
end
