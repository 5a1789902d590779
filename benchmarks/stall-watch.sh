#!/usr/bin/env bash
# Watches MariaDB hosts for a statement running longer than a threshold, and at the first sight of
# one takes what says why it waits: the host's processlist, its open transactions, SHOW ENGINE
# INNODB STATUS and its lock waits, a thread dump of mariadbd (gdb), a jstack of each Quiver server
# started under the same directory, and the disk's counters. It dumps nothing more for 15 s after, so
# one stall gives one set of dumps. Every sample is kept too, one line a poll per host: its time,
# the statements past the threshold, and the longest statement running then, whatever its age.
#   benchmarks/stall-watch.sh [--samples-only] DATA_DIR [THRESHOLD_MS] [OUT_DIR]
# DATA_DIR: where the hosts keep their data, e.g. a workload run's workload-data-*/quiver (the
# hosts whose --datadir lies under it are watched, those running when the script starts);
# THRESHOLD_MS: default 1500; OUT_DIR: default DATA_DIR/../stall-watch. Polls each host every
# 0.25 s through one client connection. A thread dump stops mariadbd for seconds under load, long
# enough for Quiver to find the host down and answer its writes 503 (thousands in one round): the
# dumps perturb what they watch, the samples do not. --samples-only takes no dump, for rounds
# whose holds are to be counted rather than explained. Stop it with Ctrl-C (or kill its group).
set -uo pipefail
dumps=yes
if [ "${1:-}" = --samples-only ]; then dumps=no; shift; fi
data="$(cd "${1:?usage: stall-watch.sh [--samples-only] DATA_DIR [THRESHOLD_MS] [OUT_DIR]}" && pwd)"
threshold="${2:-1500}"
out="${3:-$data/../stall-watch}"
[[ "$threshold" =~ ^[0-9]+$ ]] || { echo "THRESHOLD_MS must be a whole number of milliseconds" >&2; exit 2; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"

source "$(dirname "${BASH_SOURCE[0]}")/mariadb-hosts.sh"
find_hosts "$data" || { echo "no mariadbd runs with its data under $data" >&2; exit 1; }

# What holds host $2 (port $3, mariadbd $1), taken side by side, each bounded in time. The SQL
# first: gdb stops mariadbd while it walks the threads, and a client that connects then gets nothing.
dump() {
  local pid=$1 name=$2 port=$3 stamp
  stamp="$(date +%H%M%S.%N | cut -c1-10)-$name"
  local connection; connect "$port"
  timeout 10 "${connection[@]}" -e "SHOW FULL PROCESSLIST; SELECT * FROM information_schema.INNODB_TRX\G
    SHOW ENGINE INNODB STATUS\G
    SELECT * FROM information_schema.INNODB_LOCK_WAITS; SELECT * FROM information_schema.INNODB_LOCKS" \
    > "$out/$stamp-sql.txt" 2>&1 &
  sleep 0.3
  timeout 20 gdb -p "$pid" -batch -ex "thread apply all bt" > "$out/$stamp-gdb.txt" 2>&1 &
  for server in $(pgrep -f -- "$data" | grep -vx "$$"); do
    if [ "$(cat "/proc/$server/comm" 2>/dev/null)" = java ]; then
      timeout 10 jstack "$server" > "$out/$stamp-jstack-$server.txt" 2>&1 &
    fi
  done
  { cat /proc/diskstats; grep -i dirty /proc/meminfo; } > "$out/$stamp-disk.txt"
  wait
}

# One host: a poll every 0.25 s through one connection; a dump at the first statement past the
# threshold, and none for 15 s after it. A statement is a text command ('Query': BEGIN, COMMIT) or
# a prepared one ('Execute': every statement Quiver's SQL client sends). The samples go on being
# read meanwhile: a loop that slept instead would find the ones queued during its sleep, taken
# during the stall, and dump it again.
watch_host() {
  local pid=$1 port=$2 name=$3 connection quiet_until=0
  connect "$port"
  while true; do
    echo "SELECT UNIX_TIMESTAMP(), NOW(6), COALESCE(SUM(TIME_MS > $threshold), 0), COALESCE(MAX(TIME_MS), 0)
          FROM information_schema.PROCESSLIST
          WHERE COMMAND IN ('Query', 'Execute') AND INFO NOT LIKE '%PROCESSLIST%';"
    sleep 0.25
  done | "${connection[@]}" -N -n 2>> "$out/errors.log" | while read -r epoch day time count longest; do
    echo "$day $time $count $longest" >> "$out/samples-$name.log"
    if [ "${count:-0}" -gt 0 ] && [ "$epoch" -ge "$quiet_until" ]; then
      echo "$day $time $name: $count statement(s) past $threshold ms, the longest $longest ms" | tee -a "$out/stalls.log"
      [ "$dumps" = yes ] && dump "$pid" "$name" "$port"
      quiet_until=$(( $(date +%s) + 15 ))
    fi
  done
}

while read -r pid rest; do
  port="$(port_of "$rest")"
  name="$(grep -o -- "--datadir=$data/[^ ]*" <<< "$rest" | sed "s|--datadir=$data/||; s|/|-|g; s|-data\$||")"
  echo "watching ${name:-host} (mariadbd $pid, port $port); $([ "$dumps" = yes ] && echo dumps || echo samples) in $out"
  watch_host "$pid" "$port" "${name:-host-$port}" &
done <<< "$hosts"
trap 'kill 0' INT TERM
wait
