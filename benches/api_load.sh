#!/usr/bin/env bash
# API under load (docs/benchmarks.md A1–A5): wrk on loopback, 64 connections, against
# `ponkeeper serve` holding the reference workload (`ponkeeper sim`, 1,000 OLTs x 128 ONUs,
# mixed vendors), and against a bare axum handler returning a constant JSON body
# (`ponkeeper bench baseline-http`, the A1 baseline), in the same run.
#
#   benches/api_load.sh [PONKEEPER_BINARY]
#   OLTS=1000 ONUS=128 DURATION=10s CONNECTIONS=64 THREADS=2 SIM_NICE=10 benches/api_load.sh
#
# Idle figures come from serve with a one-hour poll interval after its first full poll;
# A5 restarts serve on the same data with a 1 s interval, so poll cycles run back to back,
# and repeats A1–A4 while they run. The key is FULL with a rate far above what wrk sends,
# so the auth, audit and rate-limit middleware run but never refuse. Every child process
# is stopped on exit.
#
# The simulator stands in for OLTs, which live on other machines: SIM_NICE (default 0)
# runs it at that nice value, so with 10 it takes the CPU that serve leaves instead of
# sharing the two cores with serve's API as no real device would.
set -euo pipefail
cd "$(dirname "$0")/.."

BINARY="${1:-${CARGO_TARGET_DIR:-target}/release/ponkeeper}"
OLTS="${OLTS:-1000}"
ONUS="${ONUS:-128}"
DURATION="${DURATION:-10s}"
CONNECTIONS="${CONNECTIONS:-64}"
THREADS="${THREADS:-2}"
SIM_NICE="${SIM_NICE:-0}"
BASE_PORT="${BASE_PORT:-24000}"

. benches/wrk.sh
[ -x "$BINARY" ] || { echo "no ponkeeper binary at $BINARY (cargo build --release)" >&2; exit 1; }

WORK="$(mktemp -d -t ponkeeper-api-load-XXXXXX)"
PIDS=()
stop() {
    local pid
    for pid in "$@"; do kill "$pid" 2>/dev/null || true; done
    for pid in "$@"; do
        for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
}
cleanup() {
    stop "${PIDS[@]}"
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "machine: $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GB; $(date -u +%Y-%m-%dT%H:%MZ)"
echo "workload: $OLTS OLTs x $ONUS ONUs (mixed vendors); wrk -t$THREADS -c$CONNECTIONS -d$DURATION; simulator at nice $SIM_NICE"

nice -n "$SIM_NICE" "$BINARY" sim --olts "$OLTS" --onus-per-olt "$ONUS" --vendor mixed --steady \
    --base-port "$BASE_PORT" --inventory-out "$WORK/inventory.toml" >/dev/null 2>"$WORK/sim.log" &
PIDS+=($!)
for _ in $(seq 1 240); do [ -s "$WORK/inventory.toml" ] && break; sleep 0.25; done
[ -s "$WORK/inventory.toml" ] || { echo "the simulator did not start" >&2; cat "$WORK/sim.log" >&2; exit 1; }
sleep 0.5

PORT="$(free_port)"
BASE="http://127.0.0.1:$PORT/api/v1/external"
config() { # interval
    cat >"$WORK/serve.toml" <<EOF
listen = "127.0.0.1:$PORT"
data_dir = "$WORK/data"
inventory = "$WORK/inventory.toml"
[paging]
max_size = $(( OLTS > 500 ? OLTS : 500 ))
[polling]
interval = "$1"
EOF
}
config 1h
KEY="$("$BINARY" keys create --name wrk --level FULL --rate 10000000/s --config "$WORK/serve.toml" 2>/dev/null)"

SERVE=""
start_serve() {
    "$BINARY" serve --config "$WORK/serve.toml" >/dev/null 2>"$WORK/serve.log" &
    SERVE=$!
    PIDS+=("$SERVE")
}
# Waits until GET /olts shows every OLT with all its ONUs.
wait_polled() {
    for _ in $(seq 1 1200); do
        if curl -sf -H "X-API-Key: $KEY" "$BASE/olts?size=$OLTS" 2>/dev/null | python3 -c '
import json, sys
page = json.load(sys.stdin)["data"]
sys.exit(0 if len(page) == int(sys.argv[1]) and all(o["totalOnu"] == int(sys.argv[2]) for o in page) else 1)
' "$OLTS" "$ONUS" 2>/dev/null; then
            return 0
        fi
        sleep 0.25
    done
    echo "serve did not poll every OLT in time" >&2
    tail -5 "$WORK/serve.log" >&2
    exit 1
}

start_serve
START=$(date +%s.%N)
wait_polled
echo "first full poll visible after $(python3 -c "print(round($(date +%s.%N) - $START, 1))") s"
sleep 2
echo "serve RSS after the first poll: $(awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$SERVE/status") MB"

OLT_ID=$(( (OLTS + 1) / 2 ))
SERIAL="$(curl -sf -H "X-API-Key: $KEY" "$BASE/olts/$OLT_ID/onus?size=1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][0]["serial"])')"

# Two baselines: the A1 target's (a constant 170-byte body) and one whose constant body is
# A1's own answer, so the bytes' share of the gap can be told from the code's.
curl -sf -H "X-API-Key: $KEY" "$BASE/olts/$OLT_ID" >"$WORK/a1-answer.json"
BPORT="$(free_port)"
"$BINARY" bench baseline-http --listen "127.0.0.1:$BPORT" >/dev/null 2>&1 &
PIDS+=($!)
SPORT="$(free_port)"
"$BINARY" bench baseline-http --listen "127.0.0.1:$SPORT" --body-file "$WORK/a1-answer.json" >/dev/null 2>&1 &
PIDS+=($!)
for port in "$BPORT" "$SPORT"; do
    for _ in $(seq 1 40); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.25; done
done

# run NAME URL [wrk args]: prints "NAME rps p50 p99" (milliseconds), keeping wrk's output.
run() {
    local name="$1" url="$2"
    shift 2
    echo "$name $(wrk_run "$name" "$WORK/$name.txt" "$url" "$@")"
}

H=(-H "X-API-Key: $KEY")
declare -A RPS P99 TARGET
TARGET=([A1]=10 [A2]=15 [A3]=20 [A4]=25)
measure() { # suffix
    local line name rps p50 p99
    for spec in "A1|$BASE/olts/$OLT_ID" "A2|$BASE/olts?size=100" "A3|$BASE/nodes" "A4|$BASE/onus?q=$SERIAL"; do
        line="$(run "${spec%%|*}$1" "${spec#*|}" "${H[@]}")"
        read -r name rps p50 p99 <<<"$line"
        RPS[$name]=$rps
        P99[$name]=$p99
        printf '  %-10s %8s req/s   p50 %7s ms   p99 %7s ms\n' "$name" "$rps" "$p50" "$p99"
    done
}

echo
echo "idle (poll interval 1h, after the first poll):"
read -r _ BASE_RPS BASE_P50 BASE_P99 <<<"$(run baseline "http://127.0.0.1:$BPORT/")"
printf '  %-10s %8s req/s   p50 %7s ms   p99 %7s ms\n' baseline "$BASE_RPS" "$BASE_P50" "$BASE_P99"
read -r _ SAME_RPS SAME_P50 SAME_P99 <<<"$(run baseline-a1 "http://127.0.0.1:$SPORT/")"
printf '  %-10s %8s req/s   p50 %7s ms   p99 %7s ms   (A1'"'"'s answer, %s bytes, as the constant)\n' \
    baseline-a1 "$SAME_RPS" "$SAME_P50" "$SAME_P99" "$(wc -c <"$WORK/a1-answer.json")"
measure ""

echo
echo "while poll cycles run back to back (serve restarted on the same data, interval 1s):"
stop "$SERVE"
config 1s
start_serve
wait_polled
sleep 2
measure "-busy"

echo
echo "figure   measured                                   target"
python3 - "$BASE_RPS" "${RPS[A1]}" "${RPS[A3]}" "$SAME_RPS" <<'EOF'
import sys
base, a1, a3, same = map(float, sys.argv[1:])
print(f"A1 rps   {a1:.0f} req/s = {100 * a1 / base:.0f}% of the baseline's {base:.0f}   >= 50%")
print(f"         ({100 * a1 / same:.0f}% of {same:.0f} for the same bytes as a constant)")
print(f"A3 rps   {a3:.0f} req/s = {100 * a3 / base:.1f}% of the baseline's (GET /nodes)")
EOF
for a in A1 A2 A3 A4; do
    printf '%s p99   %7s ms idle                            <= %s ms\n' "$a" "${P99[$a]}" "${TARGET[$a]}"
done
for a in A1 A2 A3 A4; do
    python3 - "$a" "${P99[$a]}" "${P99[$a-busy]}" <<'EOF'
import sys
name, idle, busy = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
print(f"A5 {name}   p99 {busy:.2f} ms polling vs {idle:.2f} ms idle = {busy / idle:.2f}x    <= 2x")
EOF
done
