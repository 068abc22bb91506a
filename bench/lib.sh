# Shared by the bench scripts that measure against nginx (proxy.sh,
# backend.sh, loadgen-wrk.sh): source it, do not run it.

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
