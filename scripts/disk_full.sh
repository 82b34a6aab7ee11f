#!/usr/bin/env bash
# A full disk on a real filesystem (docs/production.md, "A full disk"): `ponkeeper serve`
# with its data directory on a small tmpfs, polling a simulated fleet; the tmpfs is filled
# with a file, then the file is removed. Prints when /readyz turned 503 and back, and
# what a keyless request got meanwhile. Needs root (it mounts the tmpfs).
#   scripts/disk_full.sh [path/to/ponkeeper]
set -euo pipefail
bin=$(realpath "${1:-target/debug/ponkeeper}")
work=$(mktemp -d)
data=$work/data
mkdir -p "$data"
mount -t tmpfs -o size=128m,mode=0700 tmpfs "$data"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  umount "$data" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export SIM_SSH_PASSWORD=sim-olt-secret
"$bin" sim --olts 20 --onus-per-olt 32 --base-port 0 --inventory-out "$work/inventory.toml" \
  >/dev/null 2>"$work/sim.log" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/inventory.toml" ] && break; sleep 0.1; done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$work/ponkeeper.toml" <<TOML
listen = "127.0.0.1:$port"
data_dir = "$data"
inventory = "$work/inventory.toml"
[polling]
status_interval = "1s"
optics_interval = "5s"
[storage]
min_free_mb = 32
TOML
"$bin" serve --config "$work/ponkeeper.toml" >/dev/null 2>"$work/serve.log" &
pids+=($!)
base=http://127.0.0.1:$port
ready() { curl -s -o /dev/null -w '%{http_code}' "$base/readyz"; }
for _ in $(seq 200); do [ "$(ready)" = 200 ] && break; sleep 0.1; done
echo "ready: $(ready); free: $(df --output=avail -B1M "$data" | tail -1) MiB"
free=$(df --output=avail -B1M "$data" | tail -1)
filled=$(date +%s.%N)
dd if=/dev/zero of="$data/filler" bs=1M count=$((free - 8)) status=none
echo "filled to $(df --output=avail -B1M "$data" | tail -1) MiB free"
until [ "$(ready)" = 503 ]; do sleep 0.1; done
echo "readyz 503 after $(python3 -c "import time; print(round(time.time() - $filled, 2))") s: $(curl -s "$base/readyz")"
echo "a keyless request: $(curl -s -o /dev/null -w '%{http_code}' "$base/api/v1/external/olts")"
sleep 5
echo "still serving reads during: readyz $(ready), sled intact: $(ls "$data")"
rm "$data/filler"
freed=$(date +%s.%N)
until [ "$(ready)" = 200 ]; do sleep 0.1; done
echo "readyz 200 again $(python3 -c "import time; print(round(time.time() - $freed, 2))") s after the space was freed"
echo "log lines about space: $(grep -c -i 'nearly full\|writes resume' "$work/serve.log")"
grep -i 'nearly full\|writes resume\|a write failed' "$work/serve.log" | cut -c1-220 || true
