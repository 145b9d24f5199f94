-- wrk script for the relay benchmark (`make bench BENCH=relay`, phase "wrk").
-- HUSH_WRK_MODE=health: GET /v1/health, the baseline.
-- HUSH_WRK_MODE=deposit: binary deposits (what `hush` sends) of
--   HUSH_WRK_ENVELOPE_BYTES bytes of 0xA5, SHA-256 in HUSH_WRK_DIGEST (base64),
--   round robin over the request paths listed one per line in HUSH_WRK_PATHS,
--   each with a request id no other request of the run uses (HUSH_WRK_RUN,
--   the thread, a counter), so the relay stores every one.
-- `done` prints one line the benchmark parses: `wrk-result key=value …`
-- (latencies in µs; timeouts apart from the other socket errors).

local thread_count = 0

function setup(thread)
  thread:set("thread_id", thread_count)
  thread_count = thread_count + 1
end

local mode, paths, body, headers, run_tag
local counter = 0

function init(args)
  mode = os.getenv("HUSH_WRK_MODE") or "health"
  if mode == "deposit" then
    paths = {}
    for line in io.lines(os.getenv("HUSH_WRK_PATHS")) do paths[#paths + 1] = line end
    body = string.rep(string.char(0xA5), tonumber(os.getenv("HUSH_WRK_ENVELOPE_BYTES") or "512"))
    run_tag = os.getenv("HUSH_WRK_RUN") or "run"
    headers = {
      ["Content-Type"] = "application/octet-stream",
      ["Hush-Envelope-SHA256"] = os.getenv("HUSH_WRK_DIGEST"),
    }
  end
end

function request()
  if mode ~= "deposit" then
    return wrk.format("GET", "/v1/health")
  end
  counter = counter + 1
  headers["Hush-Request-ID"] = "wrk-" .. run_tag .. "-" .. thread_id .. "-" .. counter
  return wrk.format("POST", paths[(counter % #paths) + 1], headers, body)
end

-- `done`: the line every benchmark script prints (Benchmarks/wrk/result.lua).
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "result.lua")
