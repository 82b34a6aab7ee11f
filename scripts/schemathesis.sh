#!/usr/bin/env bash
# Runs schemathesis against a running `ponkeeper demo` at its own `/v3/api-docs`, with a
# FULL key and every check (`--checks all`): no 5xx; every response conforms to its
# documented status code, content type, headers and schema; what the schema refuses is
# refused (400) and what it admits is accepted — but for the cross-parameter rules listed
# in scripts/schemathesis.toml. The phases are examples, coverage, fuzzing and the
# stateful one, which chains operations through the ids their answers give. Bounded to a
# few minutes on two cores (a few examples per operation, one worker). Actions really act
# on the demo's simulated fleet.
#
#   scripts/schemathesis.sh [PONKEEPER_BINARY] [VENV]
set -euo pipefail
cd "$(dirname "$0")/.."

BINARY="${1:-${CARGO_TARGET_DIR:-target}/debug/ponkeeper}"
VENV="${2:-${TEST_VENV:-.venv}}"
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-10}"

# A free loopback port: bind to 0 and let the kernel pick.
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
LOG="$(mktemp -t ponkeeper-demo-XXXXXX.log)"
"$BINARY" demo --listen "127.0.0.1:$PORT" >"$LOG" 2>&1 &
DEMO=$!
stop_demo() {
    kill "$DEMO" 2>/dev/null || true
    # Graceful shutdown first; a demo that has not stopped in 15 s is killed.
    for _ in $(seq 1 30); do kill -0 "$DEMO" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$DEMO" 2>/dev/null || true
    wait "$DEMO" 2>/dev/null || true
    rm -f "$LOG"
}
trap stop_demo EXIT

# The demo prints its keys and then `Listening on ...` once it is ready.
for _ in $(seq 1 120); do
    grep -q '^Listening on ' "$LOG" && break
    if ! kill -0 "$DEMO" 2>/dev/null; then
        echo "the demo exited:" >&2
        cat "$LOG" >&2
        exit 1
    fi
    sleep 0.5
done
grep -q '^Listening on ' "$LOG" || { echo "the demo did not start:" >&2; cat "$LOG" >&2; exit 1; }
KEY="$(sed -n 's/^FULL key: //p' "$LOG")"
[ -n "$KEY" ] || { echo "no FULL key in the demo's output" >&2; exit 1; }

# 429 is documented on every operation, and the client stays under the key's 100/s.
"$VENV/bin/schemathesis" --config-file scripts/schemathesis.toml \
    run "http://127.0.0.1:$PORT/v3/api-docs" \
    --header "X-API-Key: $KEY" \
    --checks all \
    --phases examples,coverage,fuzzing,stateful \
    --max-examples "$MAX_EXAMPLES" \
    --workers 1 \
    --rate-limit 50/s \
    --request-timeout 30 \
    --seed "${SCHEMATHESIS_SEED:-6}" \
    --no-color
