#!/usr/bin/env bash
# What an idle ./quiver dev asks of its MariaDB hosts: statements per second on each, counted by
# MariaDB itself (SHOW GLOBAL STATUS LIKE 'Questions'), 20 s after the server started and again
# 30 s later. Run it with nothing else on the machine's MariaDB servers.
#   benchmarks/idle-statements.sh [CHECKOUT]     (default: this one)
set -euo pipefail
root="$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}" && pwd)"
data="$(mktemp -d "${TMPDIR:-/tmp}/quiver-idle.XXXX")"
log="$data.log"
"$root/quiver" dev --port 0 --data "$data" > "$log" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null || true; rm -rf "$data"' EXIT
for _ in $(seq 1 300); do grep -q "Quiver serves HTTP" "$log" && break; sleep 1; done
grep -q "Quiver serves HTTP" "$log" || { echo "the server did not start; see $log" >&2; exit 1; }
sleep 20
source "$(dirname "${BASH_SOURCE[0]}")/mariadb-hosts.sh"
find_hosts "$data" || { echo "no mariadbd runs with its data under $data; see $log" >&2; exit 1; }
ports="$(while read -r line; do port_of "$line"; done <<< "$hosts" | sort -u)"
questions() {
  local connection; connect "$1"
  "${connection[@]}" -N -e "SHOW GLOBAL STATUS LIKE 'Questions'" | awk '{print $2}'
}
declare -A before
for port in $ports; do before[$port]=$(questions "$port"); done
sleep 30
total=0
for port in $ports; do
  asked=$(( $(questions "$port") - ${before[$port]} - 1 ))
  total=$(( total + asked ))
  awk -v port="$port" -v asked="$asked" 'BEGIN { printf "host on port %s: %d statements in 30 s (%.1f / s)\n", port, asked, asked / 30 }'
done
awk -v total="$total" 'BEGIN { printf "all hosts: %.1f statements / s\n", total / 30 }'
