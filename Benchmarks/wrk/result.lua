-- The `done` of every wrk script of the benchmarks (Benchmarks/wrk/relay.lua,
-- Benchmarks/ejabberd/send_message.lua): one line the benchmark parses,
-- `wrk-result key=value …` (latencies in µs; timeouts apart from the other
-- socket errors). A script loads it with `dofile` from its own folder's path.

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    "wrk-result requests=%d micros=%d p50=%d p99=%d max=%d non2xx=%d socket_errors=%d timeouts=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    errors.status, errors.connect + errors.read + errors.write, errors.timeout))
end
