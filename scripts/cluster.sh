#!/usr/bin/env bash
# Three ponkeeper members on this host over one simulated fleet, linked with mutual TLS
# (docs/scale-out.md): a simulator of $OLTS OLTs, a cluster CA and a certificate per
# member made with openssl, one FULL key that every member takes (`keys create --key-env`),
# and per member a data directory, a configuration and `ponkeeper serve`. Each member is
# one command, printed as it starts:
#
#   target/release/ponkeeper serve --config $DIR/alpha/ponkeeper.toml
#
# Stop everything with Ctrl-C. DIR keeps the configurations, logs and stores; run again
# with the same DIR to start the members on their stores. Environment: OLTS (30),
# ONUS (16), DIR (a new directory under /tmp), BIN (target/release/ponkeeper, built
# when missing), BASE_PORT (18080: HTTP on BASE_PORT+n, cluster on BASE_PORT+10+n, the
# simulator's OLTs from BASE_PORT+100).
set -euo pipefail

cd "$(dirname "$0")/.."
OLTS=${OLTS:-30}
ONUS=${ONUS:-16}
BIN=${BIN:-target/release/ponkeeper}
BASE_PORT=${BASE_PORT:-18080}
DIR=${DIR:-$(mktemp -d /tmp/ponkeeper-cluster.XXXXXX)}
NAMES=(alpha bravo charlie)
mkdir -p "$DIR"

if [ ! -x "$BIN" ]; then
  cargo build --release
fi

children=()
stop() {
  for pid in "${children[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop EXIT INT TERM

# The simulated fleet, steady so that every member reads the same ONUs.
"$BIN" sim --olts "$OLTS" --onus-per-olt "$ONUS" --steady \
  --base-port $((BASE_PORT + 100)) --inventory-out "$DIR/inventory.toml" \
  --control "$DIR/sim.sock" > "$DIR/sim.log" 2>&1 &
children+=($!)
for _ in $(seq 100); do [ -s "$DIR/inventory.toml" ] && break; sleep 0.1; done

# The cluster's CA, once; each member's certificate carries its name as a DNS name.
if [ ! -f "$DIR/ca.pem" ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
    -subj /CN=ponkeeper-cluster-ca -keyout "$DIR/ca.key" -out "$DIR/ca.pem" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
    2> /dev/null
fi

peers_of() {
  local me=$1 list="" i
  for i in "${!NAMES[@]}"; do
    [ "${NAMES[$i]}" = "$me" ] && continue
    list+="${list:+, }{ name = \"${NAMES[$i]}\", address = \"127.0.0.1:$((BASE_PORT + 10 + i))\" }"
  done
  echo "$list"
}

export CLUSTER_COOKIE=${CLUSTER_COOKIE:-$(openssl rand -hex 24)}
for i in "${!NAMES[@]}"; do
  name=${NAMES[$i]}
  member="$DIR/$name"
  mkdir -p "$member"
  if [ ! -f "$member/member.pem" ]; then
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$name" \
      -keyout "$member/member.key" -out "$member/member.csr" 2> /dev/null
    printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth,clientAuth\nbasicConstraints=CA:FALSE\n' \
      "$name" > "$member/ext.cnf"
    openssl x509 -req -in "$member/member.csr" -CA "$DIR/ca.pem" -CAkey "$DIR/ca.key" \
      -CAcreateserial -days 825 -extfile "$member/ext.cnf" -out "$member/member.pem" 2> /dev/null
  fi
  cat > "$member/ponkeeper.toml" <<EOF
listen = "127.0.0.1:$((BASE_PORT + i))"
data_dir = "$member/data"
inventory = "$DIR/inventory.toml"

[cluster]
name = "$name"
listen = "127.0.0.1:$((BASE_PORT + 10 + i))"
peers = [$(peers_of "$name")]
cookie_env = "CLUSTER_COOKIE"

[cluster.tls]
cert = "$member/member.pem"
key = "$member/member.key"
ca = "$DIR/ca.pem"
EOF
  # One key for the whole cluster: alpha makes it, the others are given it.
  if [ ! -f "$DIR/key" ]; then
    "$BIN" keys create --name ops --level FULL --config "$member/ponkeeper.toml" > "$DIR/key"
  elif [ ! -f "$member/key-given" ]; then
    CLUSTER_KEY=$(cat "$DIR/key") "$BIN" keys create --name ops --level FULL \
      --key-env CLUSTER_KEY --config "$member/ponkeeper.toml" > /dev/null
  fi
  touch "$member/key-given"
  echo "$BIN serve --config $member/ponkeeper.toml"
  "$BIN" serve --config "$member/ponkeeper.toml" > "$member/serve.log" 2>&1 &
  children+=($!)
done

control="python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.argv[2].encode()+b\"\\n\"); print(s.recv(4096).decode().strip())' $DIR/sim.sock"
cat <<EOF

Three members, one fleet of $OLTS OLTs, one key ($DIR/key). Any member answers for all of it:
  curl -s -H "X-API-Key: \$(cat $DIR/key)" http://127.0.0.1:$BASE_PORT/api/v1/external/cluster
  curl -s -H "X-API-Key: \$(cat $DIR/key)" 'http://127.0.0.1:$((BASE_PORT + 1))/api/v1/external/olts?size=100'
Every member's events in one stream (its ids resume on any member as Last-Event-ID):
  curl -sN -H "X-API-Key: \$(cat $DIR/key)" http://127.0.0.1:$((BASE_PORT + 2))/api/v1/external/events/stream
Events to watch: ONUs 1-4 of port 0/1/0 on every OLT lose light, then come back (the
simulator's control socket):
  $control 'set los:0/1/0:1-4@all'
  $control 'clear'
Stop one (kill -9 the pid of 'serve --config $DIR/charlie/...') and watch the others take
its OLTs in /cluster. Logs and stores: $DIR. Ctrl-C stops everything.
EOF
wait
