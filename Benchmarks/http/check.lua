-- POST /v1/verifications/{id}/check with a wrong code: every request takes an attempt and is judged.
local key = os.getenv("OTP_BENCH_KEY")
local id = os.getenv("OTP_BENCH_ID")
local code = os.getenv("OTP_BENCH_CODE")
wrk.method = "POST"
wrk.path = "/v1/verifications/" .. id .. "/check"
wrk.headers["Authorization"] = "Bearer " .. key
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"code":"' .. code .. '"}'
