-- wrk script for scripts/loadtest: POSTs one verifyReceipt body (read at start from $LOADTEST_BODY)
-- and prints one machine-readable RESULT line when wrk finishes.
local path = os.getenv("LOADTEST_BODY")
local file = assert(io.open(path, "rb"), "LOADTEST_BODY must name the request body file")
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"

done = function(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    "RESULT requests=%d duration_us=%d rps=%.1f p50_us=%d p90_us=%d p99_us=%d max_us=%d " ..
    "errors_connect=%d errors_read=%d errors_write=%d errors_status=%d errors_timeout=%d\n",
    summary.requests, summary.duration, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    errors.connect, errors.read, errors.write, errors.status, errors.timeout))
end
