#!/bin/sh
# Linking a device (docs/PROTOCOL.md §20.6) against `hush backup create` + `hush backup restore`
# of the same home, in the same run, with the same `hush` binary, all as processes measured by
# /usr/bin/time (wall, user + system CPU, peak RSS).
#
#   Benchmarks/link/link-vs-backup.sh HUSH KEPT_DIR [WORK_DIR]
#
# HUSH is the `hush` to measure (the release one: .build-release/.../hush). KEPT_DIR is what
# `HushBench backup --messages N --attachment-mib M --keep KEPT_DIR` kept: an archive of the
# bench's home and its recovery key. The home is first restored from it (that restore is the
# baseline's second half), backed up again (the first half), then linked to a new home through
# a relay of the same binary on loopback; the link's CPU is both devices' plus the relay's.
set -eu
HUSH=$1 KEPT=$2 WORK=${3:-$(mktemp -d)}
export HUSH_PASSPHRASE="backup bench passphrase" HUSH_KDF_COST=interactive NO_COLOR=1
FORMAT="%e %U %S %M"
measure() { label=$1; shift; /usr/bin/time -f "$FORMAT" -o "$WORK/$label.time" "$@"; }
# The last line: time puts "Command exited with non-zero status" above it when there is one
# (the restore's new sessions fail with exit 22 when the bench's relay is gone: after the restore).
cpu_of() { tail -1 "$WORK/$1.time" | awk '{ print $2 + $3 }'; }
wall_of() { tail -1 "$WORK/$1.time" | awk '{ print $1 }'; }
rss_of() { tail -1 "$WORK/$1.time" | awk '{ printf "%.1f", $4 / 1024 }'; }
relay_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

archive=$(ls "$KEPT"/*.hushbackup | head -1)
HUSH_RECOVERY_KEY=$(cat "$KEPT/recovery-key") HUSH_HOME="$WORK/home" measure restore "$HUSH" backup restore "$archive" --json > "$WORK/restore.json" 2>&1 || true
HUSH_HOME="$WORK/home" measure create "$HUSH" backup create --to "$WORK/archives" --json > "$WORK/create.json"

"$HUSH" relay serve --host 127.0.0.1 --port 0 --data "$WORK/relay" --log-level error > "$WORK/relay.log" 2>&1 &
relay=$!
trap 'kill $relay 2>/dev/null || true' EXIT
while ! grep -q "listening on http" "$WORK/relay.log"; do sleep 0.1; done
url=$(grep -o "http://[0-9.:]*" "$WORK/relay.log" | head -1)
ticks_before=$(relay_ticks $relay)
mkfifo "$WORK/answer"
start=$(date +%s.%N)
HUSH_HOME="$WORK/home" measure link "$HUSH" device link --relay "$url" --name bench --json < "$WORK/answer" > "$WORK/link.out" 2>&1 &
linker=$!
exec 3> "$WORK/answer"
until grep -q '"code"' "$WORK/link.out" 2>/dev/null; do sleep 0.05; done
code=$(grep -o '"code" *: *"[^"]*"' "$WORK/link.out" | sed 's/.*"\([^"]*\)"$/\1/')
HUSH_HOME="$WORK/linked" measure join "$HUSH" init --link "$code" --device-name linked --json > "$WORK/join.out" 2>&1 &
joiner=$!
until grep -q '"digits"' "$WORK/link.out" 2>/dev/null; do sleep 0.05; done
echo yes >&3
exec 3>&-
wait $linker; wait $joiner
end=$(date +%s.%N)
ticks_after=$(relay_ticks $relay)
hz=$(getconf CLK_TCK)

home_mib=$(du -sm "$WORK/home" | cut -f1)
diff -r -q "$WORK/home/attachments" "$WORK/linked/attachments" > /dev/null && same=identical || same=DIFFER
awk -v cw="$(wall_of create)" -v rw="$(wall_of restore)" -v cc="$(cpu_of create)" -v rc="$(cpu_of restore)" \
    -v lw="$(echo "$end - $start" | bc)" -v lc="$(cpu_of link)" -v jc="$(cpu_of join)" \
    -v relay="$(( ticks_after - ticks_before ))" -v hz="$hz" -v mib="$home_mib" -v same="$same" \
    -v lr="$(rss_of link)" -v jr="$(rss_of join)" -v cr="$(rss_of create)" -v rr="$(rss_of restore)" 'BEGIN {
  relayc = relay / hz
  printf "home: %d MiB on disk; linked home'\''s attachment files: %s\n", mib, same
  printf "backup create + restore: wall %.2f s (%.2f + %.2f), CPU %.2f s (%.2f + %.2f), peak RSS %s / %s MiB\n", cw + rw, cw, rw, cc + rc, cc, rc, cr, rr
  printf "device link + init --link: wall %.2f s, CPU %.2f s (existing %.2f, new %.2f, relay %.2f), peak RSS %s / %s MiB\n", lw, lc + jc + relayc, lc, jc, relayc, lr, jr
  printf "link / (create + restore): wall %.2fx, CPU %.2fx\n", lw / (cw + rw), (lc + jc + relayc) / (cc + rc)
}'
