# Sourced by the benchmark scripts (idle-statements.sh, stall-watch.sh): the embedded MariaDB hosts
# whose data lies under a directory, and the client to ask them, found beside their server binary
# wherever the machine cache unpacked it.
#   find_hosts DIR   sets $hosts (one `pgrep -a` line per mariadbd: pid, binary, options) and
#                    $client, and exports LD_LIBRARY_PATH for the client's libraries; fails when
#                    no mariadbd has its --datadir under DIR
#   port_of LINE     the --port of one of those lines
#   connect PORT     sets the array $connection to the client's command for that host (an array,
#                    so that timeout can run it too)
find_hosts() {
  hosts="$(pgrep -a mariadbd | grep -- "--datadir=$1/" || true)"
  [ -n "$hosts" ] || return 1
  local server_binary
  server_binary="$(echo "$hosts" | head -1 | awk '{print $2}')"
  client="$(dirname "$server_binary")/mariadb"
  export LD_LIBRARY_PATH="$(dirname "$(dirname "$server_binary")")/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

port_of() { grep -o -- '--port=[0-9]*' <<< "$1" | head -1 | cut -d= -f2; }

connect() { connection=("$client" --skip-ssl-verify-server-cert -h127.0.0.1 -P"$1" -uroot); }
