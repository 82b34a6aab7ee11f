#!/usr/bin/env bash
# A cluster's cost and its takeover (docs/scale-out.md, "Measured"), in one run on one
# host: the reference workload (`ponkeeper sim`, OLTS x ONUS, mixed vendors) served
# first by one `serve`, then by three members linked with TLS, each member's store fresh.
#
#   benches/cluster_load.sh [PONKEEPER_BINARY]
#   OLTS=1000 ONUS=128 DURATION=10s CONNECTIONS=64 INTERVAL=10s benches/cluster_load.sh
#
# For each: A1-A4 with wrk (GET /olts/{id}, /olts?size=100, /nodes, /onus?q=SERIAL)
# through the one process, then through the first member. Then the third member is
# killed with SIGKILL: the time until the other two run every OLT (GET /cluster), and
# until every OLT has been polled again by them (GET /olts: every OLT named with a
# survivor and not CONNECTING). Poll interval INTERVAL (takeover_after is twice it).
# Every child process is stopped on exit. On 2 cores the three members and the
# simulator share the same two cores that one process had.
set -euo pipefail
cd "$(dirname "$0")/.."

BINARY="${1:-${CARGO_TARGET_DIR:-target}/release/ponkeeper}"
OLTS="${OLTS:-1000}"
ONUS="${ONUS:-128}"
DURATION="${DURATION:-10s}"
CONNECTIONS="${CONNECTIONS:-64}"
THREADS="${THREADS:-2}"
INTERVAL="${INTERVAL:-10s}"
BASE_PORT="${BASE_PORT:-25000}"

. benches/wrk.sh
[ -x "$BINARY" ] || { echo "no ponkeeper binary at $BINARY (cargo build --release)" >&2; exit 1; }

WORK="$(mktemp -d -t ponkeeper-cluster-load-XXXXXX)"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

now() { date +%s.%N; }
since() { python3 -c "print(round($(now) - $1, 2))"; }

echo "machine: $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GB; $(date -u +%Y-%m-%dT%H:%MZ)"
echo "workload: $OLTS OLTs x $ONUS ONUs (mixed vendors); wrk -t$THREADS -c$CONNECTIONS -d$DURATION; poll interval $INTERVAL"

"$BINARY" sim --olts "$OLTS" --onus-per-olt "$ONUS" --vendor mixed --steady \
    --base-port "$BASE_PORT" --inventory-out "$WORK/inventory.toml" >/dev/null 2>"$WORK/sim.log" &
PIDS+=($!)
for _ in $(seq 1 240); do [ -s "$WORK/inventory.toml" ] && break; sleep 0.25; done
[ -s "$WORK/inventory.toml" ] || { echo "the simulator did not start" >&2; exit 1; }

# A CA and a certificate per member (its name as the DNS name).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
    -subj /CN=bench-ca -keyout "$WORK/ca.key" -out "$WORK/ca.pem" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
NAMES=(alpha bravo charlie)
declare -A HTTP CLUSTER KEY PID
for name in solo "${NAMES[@]}"; do HTTP[$name]=$(free_port); CLUSTER[$name]=$(free_port); done
for name in "${NAMES[@]}"; do
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$name" \
        -keyout "$WORK/$name.key" -out "$WORK/$name.csr" 2>/dev/null
    printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth,clientAuth\n' "$name" >"$WORK/$name.ext"
    openssl x509 -req -in "$WORK/$name.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" \
        -CAcreateserial -days 30 -extfile "$WORK/$name.ext" -out "$WORK/$name.pem" 2>/dev/null
done

export CLUSTER_COOKIE="bench-cookie-$(date +%s%N)"
config() { # name
    local name=$1 peers="" other
    cat >"$WORK/$name.toml" <<EOF
listen = "127.0.0.1:${HTTP[$name]}"
data_dir = "$WORK/$name-data"
inventory = "$WORK/inventory.toml"
[paging]
max_size = $(( OLTS > 500 ? OLTS : 500 ))
[polling]
status_interval = "$INTERVAL"
EOF
    [ "$name" = solo ] && return
    for other in "${NAMES[@]}"; do
        [ "$other" = "$name" ] && continue
        peers+="${peers:+, }{ name = \"$other\", address = \"127.0.0.1:${CLUSTER[$other]}\" }"
    done
    cat >>"$WORK/$name.toml" <<EOF
[cluster]
name = "$name"
listen = "127.0.0.1:${CLUSTER[$name]}"
peers = [$peers]
cookie_env = "CLUSTER_COOKIE"
[cluster.tls]
cert = "$WORK/$name.pem"
key = "$WORK/$name.key"
ca = "$WORK/ca.pem"
EOF
}
start() { # name
    config "$1"
    KEY[$1]="$("$BINARY" keys create --name wrk --level FULL --rate 10000000/s --config "$WORK/$1.toml" 2>/dev/null)"
    "$BINARY" serve --config "$WORK/$1.toml" >/dev/null 2>"$WORK/$1.log" &
    PID[$1]=$!
    PIDS+=($!)
}
api() { echo "http://127.0.0.1:${HTTP[$1]}/api/v1/external"; }
# Waits until GET /olts through NAME shows every OLT with all its ONUs, polled by one of
# the MEMBERS given (none: any), none connecting.
wait_whole() { # name [members...]
    local name=$1
    shift
    for _ in $(seq 1 2400); do
        if curl -sf -H "X-API-Key: ${KEY[$name]}" "$(api "$name")/olts?size=$OLTS" 2>/dev/null | python3 -c '
import json, sys
olts, onus, members = int(sys.argv[1]), int(sys.argv[2]), set(sys.argv[3:])
page = json.load(sys.stdin)["data"]
ok = len(page) == olts and all(
    o["totalOnu"] == onus and o["status"] != "CONNECTING" and (not members or o.get("member") in members)
    for o in page)
sys.exit(0 if ok else 1)
' "$OLTS" "$ONUS" "$@" 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    echo "$name did not show the whole fleet in time" >&2
    tail -5 "$WORK/$name.log" >&2
    exit 1
}

run() { # NAME URL KEY: prints "rps p50 p99" (milliseconds)
    wrk_run "$1" "$WORK/$1.txt" "$2" -H "X-API-Key: $3"
}
OLT_ID=$(( (OLTS + 1) / 2 ))
measure() { # name label
    local base serial spec rps p50 p99
    base="$(api "$1")"
    serial="$(curl -sf -H "X-API-Key: ${KEY[$1]}" "$base/olts/$OLT_ID/onus?size=1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][0]["serial"])')"
    echo "$2:"
    for spec in "A1|$base/olts/$OLT_ID" "A2|$base/olts?size=100" "A3|$base/nodes" "A4|$base/onus?q=$serial"; do
        read -r rps p50 p99 <<<"$(run "$1-${spec%%|*}" "${spec#*|}" "${KEY[$1]}")"
        printf '  %-3s %8s req/s   p50 %7s ms   p99 %7s ms\n' "${spec%%|*}" "$rps" "$p50" "$p99"
    done
}

start solo
T=$(now); wait_whole solo
echo "one process: whole fleet polled after $(since "$T") s"
measure solo "one process"
kill -9 "${PID[solo]}"

T=$(now)
for name in "${NAMES[@]}"; do start "$name"; done
wait_whole alpha alpha bravo charlie
# ...and the members have heard each other: all in sight and ready.
for _ in $(seq 1 600); do
    curl -sf -H "X-API-Key: ${KEY[alpha]}" "$(api alpha)/cluster" | python3 -c '
import json, sys
members = json.load(sys.stdin)["data"]["members"]
sys.exit(0 if all(m["inSight"] and m["ready"] for m in members) else 1)' 2>/dev/null && break
    sleep 0.1
done
echo "three members: whole fleet polled, through alpha, after $(since "$T") s"
measure alpha "three members, through alpha"

echo
curl -sf -H "X-API-Key: ${KEY[alpha]}" "$(api alpha)/cluster" | python3 -c '
import json, sys
for m in json.load(sys.stdin)["data"]["members"]:
    print("  %-8s runs %5d OLTs" % (m["name"], m["olts"]))'
KILLED=$(now)
kill -9 "${PID[charlie]}"
for _ in $(seq 1 6000); do
    taken=$(curl -sf -H "X-API-Key: ${KEY[alpha]}" "$(api alpha)/cluster" | python3 -c '
import json, sys
members = {m["name"]: m for m in json.load(sys.stdin)["data"]["members"]}
print(members["alpha"]["olts"] + members["bravo"]["olts"])' 2>/dev/null || echo 0)
    [ "$taken" = "$OLTS" ] && break
    sleep 0.1
done
echo "charlie killed: alpha and bravo run every OLT after $(since "$KILLED") s (takeover_after: 2 x $INTERVAL)"
wait_whole alpha alpha bravo
echo "charlie killed: every OLT polled again by alpha or bravo after $(since "$KILLED") s"
