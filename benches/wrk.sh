# Shared by benches/api_load.sh and benches/cluster_load.sh (sourced, not run): wrk
# present, a free loopback port, and one wrk run's figures.

command -v wrk >/dev/null || apt-get install -y wrk >/dev/null
command -v wrk >/dev/null || { echo "wrk is missing and could not be installed" >&2; exit 1; }

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wrk_run NAME OUT URL [wrk args...]: runs wrk with THREADS, CONNECTIONS and DURATION,
# keeps its output in OUT, reports non-2xx answers or socket errors on stderr, and
# prints "rps p50 p99" (milliseconds).
wrk_run() {
    local name="$1" out="$2" url="$3"
    shift 3
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$@" "$url" >"$out"
    if grep -q -E "Non-2xx|Socket errors" "$out"; then
        echo "$name: errors during the run:" >&2
        grep -E "Non-2xx|Socket errors" "$out" >&2
    fi
    python3 - "$out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def ms(value):
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", value).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
p50 = ms(re.search(r"^\s+50%\s+(\S+)", text, re.M).group(1))
p99 = ms(re.search(r"^\s+99%\s+(\S+)", text, re.M).group(1))
print(f"{rps:.0f} {p50:.2f} {p99:.2f}")
PY
}
