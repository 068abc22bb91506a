# Shared by the bench scripts that measure against nginx (proxy.sh,
# backend.sh, loadgen-wrk.sh; measure: the first two): source it, do not
# run it.

# need CMD PACKAGE installs PACKAGE from Debian unless CMD is on PATH.
need() { command -v "$1" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }; }

# nginx_conf DIR PORT prints the peer's config: one nginx process (no
# master, so its pid is the one that serves and is charged) answering a
# fixed 200 "ok" on 127.0.0.1:PORT, its files in DIR.
nginx_conf() {
  cat <<CFG
daemon off;
master_process off;
worker_processes 1;
pid $1/nginx.pid;
error_log $1/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $1;
  proxy_temp_path $1;
  keepalive_requests 100000000;
  server {
    listen 127.0.0.1:$2;
    location / { default_type text/plain; return 200 "ok\n"; }
  }
}
CFG
}

# ticks PID is the process's CPU time so far (user + system), in clock ticks.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# measure NAME PORT CONNS runs wrk -t1 for $secs against 127.0.0.1:PORT
# (under the on_load command prefix, e.g. taskset) and prints "rps p50_ms
# p99_ms non2xx cpu_us_per_request", the CPU charged to pidof[NAME]. The
# caller defines secs, tmp, on_load and the pidof map.
measure() {
  local t0 t1
  t0=$(ticks "${pidof[$1]}")
  "${on_load[@]}" wrk -t1 -c"$3" -d"${secs}s" --latency "http://127.0.0.1:$2/" >"$tmp/wrk.out" 2>&1
  t1=$(ticks "${pidof[$1]}")
  awk -v cpu="$(( t1 - t0 ))" -v hz="$(getconf CLK_TCK)" -v secs="$secs" '
    function ms(v) { if (v ~ /us$/) return v/1000; if (v ~ /ms$/) return v+0; if (v ~ /s$/) return v*1000; return v }
    /Requests\/sec/ { rps=$2 }
    $1=="50%" { p50=ms($2) }
    $1=="99%" { p99=ms($2) }
    /Non-2xx/ { bad=$NF }
    END { printf "%.0f %.3f %.3f %s %.1f\n", rps, p50, p99, (bad==""?0:bad), cpu/hz*1e6/(rps*secs) }' "$tmp/wrk.out"
}
