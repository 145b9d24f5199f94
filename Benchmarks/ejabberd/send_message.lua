-- wrk script for the ejabberd baseline (Benchmarks/ejabberd/ejabberd-bench.sh):
-- mod_http_api's send_message, a chat message of HUSH_WRK_ENVELOPE_BYTES
-- bytes ("x" repeated) from bench@HOST to u1..uN@HOST (HUSH_EJABBERD_HOST,
-- HUSH_EJABBERD_USERS), round robin. The users are registered and offline,
-- so mod_offline stores each message: ejabberd's closest equivalent of a
-- deposit into a mailbox.
-- `done` comes from Benchmarks/wrk/result.lua, shared with the relay's script.

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

-- `done`: the line every benchmark script prints (Benchmarks/wrk/result.lua).
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "../wrk/result.lua")
