#!/usr/bin/env bash
# Local stand-ins for the images deploy/ needs but an offline machine cannot
# pull (docs/compose.md, "How it is tested"), made with `docker import` from
# files already on this machine:
#   golang:1.26                                the Go toolchain that runs this script's `go`,
#                                              a busybox shell, and GOPROXY=file:///goproxy
#                                              holding exactly the modules `go mod download` needs
#   gcr.io/distroless/static-debian12:nonroot  an empty root with distroless's users
#                                              (nonroot = 65532) and /tmp
#   lblab-prometheus:debian                    Debian's prometheus binary and the libraries
#                                              it links, laid out like prom/prometheus
# deploy/Dockerfile is then built unchanged against the first two, and
# deploy/offline/compose.yaml points the prometheus service at the third.
# Needs: docker, go, busybox-static and prometheus (Debian packages).
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

need() { command -v "$1" >/dev/null || { echo "standins: $1 is missing ($2)" >&2; exit 1; }; }
need docker "apt-get install docker.io"
need "$GO" "Go 1.26"
need busybox "apt-get install busybox-static"
need prometheus "apt-get install prometheus"

# golang:1.26 --------------------------------------------------------------
goroot=$("$GO" env GOROOT)
gov=$("$GO" env GOVERSION)
case "$gov" in go1.26*) ;; *) echo "standins: golang:1.26 needs Go 1.26, this is $gov" >&2; exit 1 ;; esac
# The module proxy: the modules the Dockerfile's `go mod download` fetches,
# copied out of this machine's module cache (downloaded once if missing).
host_cache=$("$GO" env GOMODCACHE)/cache/download
GOFLAGS=-mod=mod GOMODCACHE="$work/mod" GOPROXY="file://$host_cache,$("$GO" env GOPROXY)" \
	"$GO" mod download
chmod -R u+w "$work/mod"
mkdir -p "$work/golang/bin" "$work/golang/tmp" "$work/golang/root" "$work/golang/go" "$work/golang/etc"
mv "$work/mod/cache/download" "$work/golang/goproxy"
cp "$(command -v busybox)" "$work/golang/bin/busybox"
for applet in sh ls cat env mkdir rm cp mv; do ln -s busybox "$work/golang/bin/$applet"; done
chmod 1777 "$work/golang/tmp"
echo 'root:x:0:0:root:/root:/bin/sh' >"$work/golang/etc/passwd"
echo 'root:x:0:' >"$work/golang/etc/group"
tar -C "$work/golang" -c . -C "$(dirname "$goroot")" \
	--exclude="$(basename "$goroot")/test" --exclude='testdata' --exclude="$(basename "$goroot")/doc" \
	--transform "s|^$(basename "$goroot")|usr/local/go|" "$(basename "$goroot")" |
	docker import \
		--change 'ENV PATH=/go/bin:/usr/local/go/bin:/bin' \
		--change 'ENV GOPATH=/go' --change 'ENV HOME=/root' --change 'ENV GOTOOLCHAIN=local' \
		--change 'ENV GOPROXY=file:///goproxy' --change 'ENV GOSUMDB=off' \
		--change 'WORKDIR /go' --change 'CMD ["/bin/sh"]' \
		--message "lblab stand-in: $gov from $goroot" - golang:1.26 >/dev/null
echo "standins: golang:1.26 = $gov, busybox sh, $(find "$work/golang/goproxy" -name '*.zip' | wc -l) modules"

# gcr.io/distroless/static-debian12:nonroot ---------------------------------
d="$work/distroless"
mkdir -p "$d/etc" "$d/tmp" "$d/home/nonroot" "$d/root"
chmod 1777 "$d/tmp"
printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' \
	'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' >"$d/etc/passwd"
printf '%s\n' 'root:x:0:' 'nobody:x:65534:' 'nonroot:x:65532:' >"$d/etc/group"
tar -C "$d" --numeric-owner --owner=0 --group=0 -c . |
	docker import --change 'USER 65532' --change 'WORKDIR /home/nonroot' \
		--message "lblab stand-in for distroless static:nonroot" - gcr.io/distroless/static-debian12:nonroot >/dev/null
echo "standins: gcr.io/distroless/static-debian12:nonroot = users and /tmp, no files else"

# lblab-prometheus:debian ---------------------------------------------------
p="$work/prometheus"
mkdir -p "$p/bin" "$p/prometheus" "$p/etc/prometheus" "$p/tmp"
chmod 1777 "$p/tmp"
chmod 777 "$p/prometheus"
cp "$(command -v prometheus)" "$p/bin/prometheus"
# the dynamic libraries it links (Debian builds it with cgo)
ldd "$(command -v prometheus)" | grep -o '/[^ ]*' | while read -r lib; do
	mkdir -p "$p$(dirname "$lib")"
	cp -L "$lib" "$p$lib"
done
printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' >"$p/etc/passwd"
printf '%s\n' 'root:x:0:' 'nobody:x:65534:' >"$p/etc/group"
tar -C "$p" -c . |
	docker import --change 'ENTRYPOINT ["/bin/prometheus"]' --change 'USER nobody' \
		--change 'WORKDIR /prometheus' --change 'VOLUME ["/prometheus"]' --change 'EXPOSE 9090' \
		--change 'ENV GODEBUG=netdns=go' \
		--message "lblab stand-in: Debian's prometheus" - lblab-prometheus:debian >/dev/null
echo "standins: lblab-prometheus:debian = $(prometheus --version 2>&1 | head -1)"
