#!/bin/bash
# The ejabberd baseline for the relay's wrk phase (`make bench BENCH=relay`,
# HushBench's `relay --only wrk`): ejabberd 23.01 from Debian's package,
# driven by the same wrk shape as the relay's deposits.
#
#   Benchmarks/ejabberd/ejabberd-bench.sh [SECONDS] [CONNECTIONS] [RUNS]
#
# Installs ejabberd when it is absent (apt-get update; apt-get install -y
# ejabberd; root only), then starts a throwaway instance: its own config,
# Mnesia spool and logs in a temporary directory, HTTP on a free loopback
# port, Erlang distribution on another free loopback port (no epmd), run as
# the package's user `ejabberd`. It registers 1,000 users (u1..u1000) and a
# sender, leaves them offline, and runs wrk -t2 -cCONNECTIONS for SECONDS,
# RUNS times, with send_message.lua: 512-byte chat messages round robin over
# the users, each stored by mod_offline (ejabberd's mailbox). After the runs it
# counts the offline messages really stored, then stops the instance and
# removes the directory. A system ejabberd service the install started is
# stopped again.
#
# Output, one line per run, then one summary line (parsed by HushBench):
#   wrk-result requests=… micros=… p50=… p99=… max=… non2xx=… socket_errors=… timeouts=… cpu_micros=…
#   ejabberd-stored sent2xx=… stored=…
# or, when ejabberd cannot be had or started, one line and exit status 3:
#   ejabberd-skipped REASON
# Latencies in µs; cpu_micros is the ejabberd VM's CPU time during the run.
set -u

SECONDS_PER_RUN=${1:-20}
CONNECTIONS=${2:-64}
RUNS=${3:-1}
USERS=1000
MESSAGE_BYTES=512
XMPP_HOST=bench.localhost
HERE="$(cd "$(dirname "$0")" && pwd -P)"

skip() {
    echo "ejabberd-skipped $*"
    exit 3
}

command -v wrk >/dev/null || skip "wrk is not installed"
command -v curl >/dev/null || skip "curl is not installed"

if ! command -v ejabberdctl >/dev/null && [ ! -x /usr/sbin/ejabberdctl ]; then
    [ "$(id -u)" = 0 ] || skip "ejabberd is not installed and installing it needs root"
    echo "ejabberd-bench: installing Debian's ejabberd" >&2
    service_before=$(pgrep -u ejabberd beam 2>/dev/null || true)
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q ejabberd; } >&2 \
        || skip "apt-get install ejabberd failed"
    # The package may start its own service (where init scripts may run): not wanted here.
    if [ -z "$service_before" ] && pgrep -u ejabberd beam >/dev/null 2>&1; then
        service ejabberd stop >&2 2>&1 || systemctl stop ejabberd >&2 2>&1 || true
    fi
fi
EJABBERDCTL=$(command -v ejabberdctl || echo /usr/sbin/ejabberdctl)
getent passwd ejabberd >/dev/null || skip "the package's user ejabberd does not exist"
[ "$(id -u)" = 0 ] || [ "$(id -un)" = ejabberd ] || skip "ejabberdctl runs only as root or as ejabberd"

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
HTTP_PORT=$(free_port)
DIST_PORT=$(free_port)
WORK=$(mktemp -d /tmp/hush-ejabberd.XXXXXX)
mkdir -p "$WORK/spool" "$WORK/logs"
NODE="hushbench$$@localhost"
COOKIE=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')

# ejabberdctl reads this for the node, the distribution port (no epmd), the
# cookie (not the package user's ~/.erlang.cookie) and where the pid goes.
cat > "$WORK/ejabberdctl.cfg" <<EOF
ERLANG_NODE=$NODE
ERL_DIST_PORT=$DIST_PORT
ERL_OPTIONS="-setcookie $COOKIE -env ERL_CRASH_DUMP_BYTES 0"
EJABBERD_PID_PATH=$WORK/ejabberd.pid
EJABBERD_BYPASS_WARNINGS=true
EOF

# Only what the benchmark needs: the HTTP API on loopback, offline storage
# (Mnesia, the package's default store), no c2s/s2s listeners. Users may
# hold any number of offline messages (the package's default is 100).
cat > "$WORK/ejabberd.yml" <<EOF
hosts:
  - $XMPP_HOST
loglevel: warning
log_rotate_count: 0
auth_method: internal
auth_password_format: plain
listen:
  -
    port: $HTTP_PORT
    ip: "127.0.0.1"
    module: ejabberd_http
    request_handlers:
      /api: mod_http_api
acl:
  loopback:
    ip:
      - 127.0.0.0/8
api_permissions:
  "benchmark on loopback":
    from:
      - mod_http_api
      - ejabberd_ctl
    who:
      ip: 127.0.0.1/8
    what: "*"
shaper_rules:
  max_user_offline_messages: 100000000
modules:
  mod_admin_extra: {}
  mod_http_api: {}
  mod_offline:
    access_max_user_messages: max_user_offline_messages
EOF
chown -R ejabberd: "$WORK"

CTL=("$EJABBERDCTL" --config-dir "$WORK" --config "$WORK/ejabberd.yml" --ctl-config "$WORK/ejabberdctl.cfg"
     --spool "$WORK/spool" --logs "$WORK/logs")

stop_instance() {
    local pid
    pid=$(cat "$WORK/ejabberd.pid" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    fi
    rm -rf "$WORK"
}
trap stop_instance EXIT

"${CTL[@]}" start >&2 || skip "ejabberdctl start failed"
API="http://127.0.0.1:$HTTP_PORT/api"
started=""
for _ in $(seq 1 300); do
    if curl -s -o /dev/null -w '%{http_code}' -X POST -d '{}' "$API/status" 2>/dev/null | grep -q '^200$'; then
        started=yes; break
    fi
    sleep 0.2
done
[ -n "$started" ] || { tail -20 "$WORK/logs/ejabberd.log" >&2 2>/dev/null; skip "the ejabberd instance did not answer on its HTTP port within 60 s"; }
PID=$(cat "$WORK/ejabberd.pid" 2>/dev/null || true)
[ -n "$PID" ] || skip "the ejabberd instance wrote no pid file"

# Many requests through one curl (one kept-alive connection): a config file
# of url/data pairs, a JSON body per line of stdin; prints each answer on a line.
api_batch() {
    awk -v url="$API/$1" '{ gsub(/"/, "\\\""); printf "%surl = \"%s\"\ndata = \"%s\"\nheader = \"Content-Type: application/json\"\nwrite-out = \"\\n\"\n", (NR > 1 ? "next\n" : ""), url, $0 }' \
        > "$WORK/curl-$1.cfg"
    curl -s -K "$WORK/curl-$1.cfg"
}

{
    echo "{\"user\":\"bench\",\"host\":\"$XMPP_HOST\",\"password\":\"bench\"}"
    for i in $(seq 1 $USERS); do echo "{\"user\":\"u$i\",\"host\":\"$XMPP_HOST\",\"password\":\"bench\"}"; done
} | api_batch register > "$WORK/register.out"
registered=$(grep -c 'successfully registered' "$WORK/register.out" || true)
[ "$registered" = $((USERS + 1)) ] || skip "registered $registered of $((USERS + 1)) users: $(head -c 300 "$WORK/register.out")"

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
TICKS=$(getconf CLK_TCK)
sent2xx=0
for run in $(seq 1 "$RUNS"); do
    before=$(cpu_ticks "$PID")
    line=$(HUSH_EJABBERD_HOST=$XMPP_HOST HUSH_EJABBERD_USERS=$USERS HUSH_WRK_ENVELOPE_BYTES=$MESSAGE_BYTES \
        wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" --timeout 2s -s "$HERE/send_message.lua" "http://127.0.0.1:$HTTP_PORT" \
        | grep '^wrk-result ')
    after=$(cpu_ticks "$PID")
    [ -n "$line" ] || skip "wrk printed no result against ejabberd"
    echo "$line cpu_micros=$(( (after - before) * 1000000 / TICKS ))"
    requests=$(echo "$line" | sed 's/.*requests=\([0-9]*\).*/\1/')
    non2xx=$(echo "$line" | sed 's/.*non2xx=\([0-9]*\).*/\1/')
    sent2xx=$((sent2xx + requests - non2xx))
done

# What mod_offline really holds: the sum of every user's offline count.
for i in $(seq 1 $USERS); do echo "{\"user\":\"u$i\",\"host\":\"$XMPP_HOST\"}"; done | api_batch get_offline_count > "$WORK/count.out"
stored=$(grep -o '[0-9][0-9]*' "$WORK/count.out" | awk '{ total += $1 } END { print total + 0 }')
answers=$(grep -c '[0-9]' "$WORK/count.out" || true)
[ "$answers" = "$USERS" ] || skip "get_offline_count answered for $answers of $USERS users: $(head -c 300 "$WORK/count.out")"
echo "ejabberd-stored sent2xx=$sent2xx stored=$stored"
