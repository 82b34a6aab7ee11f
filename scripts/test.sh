#!/usr/bin/env bash
# The one test command: installs what the tests need on a fresh machine (net-snmp's
# client tools, sshpass and OpenSSH's client, VictoriaMetrics, a Python venv with snmpsim and the MCP
# client), then runs formatting and lint checks, every Rust test, the fixture check (a
# real OLT layout served by snmpsim, polled through the real service) and the MCP check
# (the official Python MCP client over HTTP and stdio), the operator page in headless
# chromium (scripts/check_ui.py, with selenium), a two-minute soak of a faulty fleet
# under load, and schemathesis. Exits non-zero on any failure. `.ci/run` calls this same script.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\n==> %s\n' "$*"; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# The binary links jemalloc (tikv-jemallocator), whose build runs make.
if ! command -v make >/dev/null 2>&1; then
    say "installing make"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make >/dev/null
fi

if ! command -v snmpbulkwalk >/dev/null 2>&1; then
    say "installing net-snmp client tools"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq snmp >/dev/null
fi

# tests/actions.rs logs into the simulator's SSH server with OpenSSH's own client.
if ! command -v sshpass >/dev/null 2>&1 || ! command -v ssh >/dev/null 2>&1; then
    say "installing sshpass and the OpenSSH client"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sshpass openssh-client >/dev/null
fi

# tests/victoria.rs keeps the history in a real VictoriaMetrics (Debian's package).
if [ ! -x /usr/bin/victoria-metrics ]; then
    say "installing victoria-metrics"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq victoria-metrics >/dev/null
fi

# scripts/check_ui.py drives the operator page in Debian's headless chromium.
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    say "installing chromium and chromedriver"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# Variables for the tooling deliberately avoid the PONKEEPER_ prefix: the service takes
# every PONKEEPER_* variable as a config override and refuses unknown ones.
VENV="${TEST_VENV:-.venv}"
if ! "$VENV/bin/python" -c 'import snmpsim, pysmi, mcp, schemathesis, selenium, standardwebhooks, aiosmtpd' >/dev/null 2>&1; then
    say "installing snmpsim, the MCP client and schemathesis into $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check -r scripts/requirements-test.txt
fi

say "cargo fmt --check"
cargo fmt --all -- --check

say "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

say "cargo test"
# actors/tests/fixtures.rs serves the .snmprec fixtures with this snmpsim.
SNMPSIM_COMMAND="$(cd "$VENV/bin" && pwd)/snmpsim-command-responder"
export SNMPSIM_COMMAND
# tests/webhooks.rs runs scripts/webhook_receiver.py (PyPI standardwebhooks) with it.
WEBHOOK_PYTHON="$(cd "$VENV/bin" && pwd)/python"
export WEBHOOK_PYTHON
# A plain `cargo test` skips (loudly) the tests whose outside tools are missing; here
# everything was just installed, so a missing tool is a failure, never a silent skip.
REQUIRE_TEST_TOOLS=1
export REQUIRE_TEST_TOOLS
cargo test --workspace --locked

say "fixture check: vendor fixtures served by snmpsim, polled by ponkeeper serve"
# `cargo test` built the binary for the integration tests. A `cargo build --bin` here
# would build every dependency again (its features differ from the tests'): minutes of
# CPU and a gigabyte of disk for the same program.
[ -x "${CARGO_TARGET_DIR:-target}/debug/ponkeeper" ] || cargo build --locked --bin ponkeeper
"$VENV/bin/python" scripts/check_fixture.py \
    --binary "${CARGO_TARGET_DIR:-target}/debug/ponkeeper" \
    --snmpsim "$VENV/bin/snmpsim-command-responder" \
    --fixtures tests/fixtures \
    --fixture huawei-ma5800 --fixture zte-c320 --fixture bdcom-p3310 \
    --fixture huawei-ma5800-no-port --fixture zte-c620 --fixture bdcom-gp3600 \
    --fixture bdcom-gp3600-no-onu-table --fixture eltex-ltp8x --fixture vsol-v1600d \
    --fixture vsol-v1600g --fixture vsol-v1600g-no-optics --fixture cdata-fd1616 \
    --fixture snr-gpon

say "SNMPv3 check: the same fixtures over v3 authPriv (snmpsim's USM), polled by serve; a wrong password"
"$VENV/bin/python" scripts/check_snmpv3.py \
    --binary "${CARGO_TARGET_DIR:-target}/debug/ponkeeper" \
    --snmpsim "$VENV/bin/snmpsim-command-responder" \
    --fixtures tests/fixtures \
    --fixture huawei-ma5800 --fixture zte-c320 --fixture bdcom-p3310 \
    --fixture huawei-ma5800-no-port --fixture zte-c620 --fixture bdcom-gp3600

say "MCP check: the official Python client over HTTP (/mcp) and stdio (ponkeeper mcp)"
"$VENV/bin/python" scripts/check_mcp.py --binary "${CARGO_TARGET_DIR:-target}/debug/ponkeeper"

say "operator page: headless chromium against serve and sim (screenshots in target/ui-shots)"
"$VENV/bin/python" scripts/check_ui.py --binary "${CARGO_TARGET_DIR:-target}/debug/ponkeeper" --shots "${CARGO_TARGET_DIR:-target}/ui-shots"

say "README tour: its lines pasted in order against two demo runs with different seeds"
"$VENV/bin/python" scripts/check_tour.py --binary "${CARGO_TARGET_DIR:-target}/debug/ponkeeper" --seed 1 --seed 7

say "soak: a flapping, faulty fleet under steady reads (2 minutes)"
"$VENV/bin/python" scripts/soak.py --binary "${CARGO_TARGET_DIR:-target}/debug/ponkeeper" --duration "${SOAK_SECONDS:-120}"

say "schemathesis: the demo against its own OpenAPI document"
scripts/schemathesis.sh "${CARGO_TARGET_DIR:-target}/debug/ponkeeper" "$VENV"

say "container image: deploy/Dockerfile builds and runs the demo"
if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
    docker build -f deploy/Dockerfile -t ponkeeper:test .
    CONTAINER="$(docker run -d --rm -p 127.0.0.1::8080 ponkeeper:test demo --listen 0.0.0.0:8080)"
    trap 'docker stop "$CONTAINER" >/dev/null 2>&1 || true' EXIT
    PORT="$(docker port "$CONTAINER" 8080/tcp | head -n1 | sed 's/.*://')"
    for _ in $(seq 1 60); do
        curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
        sleep 1
    done
    curl -fsS "http://127.0.0.1:$PORT/healthz" | grep -q '"status":"ok"'
    [ "$(docker exec "$CONTAINER" id -u)" != "0" ] || { echo "the container runs as root" >&2; exit 1; }
    docker stop "$CONTAINER" >/dev/null
    trap - EXIT
else
    printf '\n!!!!!!!! SKIPPED: docker is not available here (no client or no daemon);\n'
    printf '!!!!!!!! deploy/Dockerfile was NOT built. Run scripts/test.sh where docker runs.\n\n'
fi
