-- wrk script for the ejabberd baseline (Benchmarks/ejabberd/ejabberd-bench.sh):
-- mod_http_api's send_message, a chat message of HUSH_WRK_ENVELOPE_BYTES
-- bytes ("x" repeated) from bench@HOST to u1..uN@HOST (HUSH_EJABBERD_HOST,
-- HUSH_EJABBERD_USERS), round robin. The users are registered and offline,
-- so mod_offline stores each message: ejabberd's closest equivalent of a
-- deposit into a mailbox.
-- `done` prints the line the relay's script prints (Benchmarks/wrk/relay.lua).

local thread_count = 0

function setup(thread)
  thread:set("thread_id", thread_count)
  thread_count = thread_count + 1
end

local host, users, text
local counter = 0
local headers = { ["Content-Type"] = "application/json" }

function init(args)
  host = os.getenv("HUSH_EJABBERD_HOST")
  users = tonumber(os.getenv("HUSH_EJABBERD_USERS") or "1000")
  text = string.rep("x", tonumber(os.getenv("HUSH_WRK_ENVELOPE_BYTES") or "512"))
  -- Threads start their round robin at different users.
  counter = thread_id * 7919
end

function request()
  counter = counter + 1
  local body = string.format(
    '{"type":"chat","from":"bench@%s","to":"u%d@%s","subject":"","body":"%s"}',
    host, (counter % users) + 1, host, text)
  return wrk.format("POST", "/api/send_message", headers, body)
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    "wrk-result requests=%d micros=%d p50=%d p99=%d max=%d non2xx=%d socket_errors=%d timeouts=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    errors.status, errors.connect + errors.read + errors.write, errors.timeout))
end
