#!/usr/bin/env bash
# Makes sure a Docker engine with the compose plugin runs here, for
# `make compose-test` (docs/compose.md, "How it is tested"):
#   - docker.io from Debian (apt-get), if there is no docker CLI and dockerd;
#   - the compose plugin v2 built from the Go module proxy, cached as
#     $GOBIN/docker-compose-$COMPOSE_VERSION (GOBIN: $(go env GOPATH)/bin) and
#     copied to /usr/local/lib/docker/cli-plugins;
#   - busybox-static and prometheus (Debian), which standins.sh packs;
#   - dockerd started in the background (log: $DOCKERD_LOG) if none answers.
# It fails on what it cannot install; a dockerd that does not come up is
# only reported (with its log) — the test then fails under CI, skips elsewhere.
set -euo pipefail
COMPOSE_VERSION=${COMPOSE_VERSION:-v2.29.7}
DOCKERD_LOG=${DOCKERD_LOG:-/tmp/lblab-dockerd.log}
GO=${GO:-go}
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v busybox >/dev/null || missing+=(busybox-static)
command -v prometheus >/dev/null || missing+=(prometheus)
if [ ${#missing[@]} -gt 0 ]; then
	echo "engine: apt-get install ${missing[*]}"
	$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
fi

gobin=$("$GO" env GOBIN); gobin=${gobin:-$("$GO" env GOPATH)/bin}
cached="$gobin/docker-compose-$COMPOSE_VERSION"
if [ ! -x "$cached" ]; then
	echo "engine: building the compose plugin $COMPOSE_VERSION from the Go module proxy (once; cached as $cached)"
	tmp=$(mktemp -d)
	GOBIN="$tmp" "$GO" install \
		-ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" \
		"github.com/docker/compose/v2/cmd@$COMPOSE_VERSION"
	mkdir -p "$gobin"
	mv "$tmp/cmd" "$cached"
	rm -rf "$tmp"
fi
$SUDO mkdir -p /usr/local/lib/docker/cli-plugins
cmp -s "$cached" /usr/local/lib/docker/cli-plugins/docker-compose ||
	$SUDO cp "$cached" /usr/local/lib/docker/cli-plugins/docker-compose

if ! docker version >/dev/null 2>&1; then
	echo "engine: starting dockerd (log: $DOCKERD_LOG)"
	$SUDO sh -c "nohup dockerd >'$DOCKERD_LOG' 2>&1 &"
	for _ in $(seq 60); do
		docker version >/dev/null 2>&1 && break
		sleep 1
	done
fi
if docker version >/dev/null 2>&1; then
	echo "engine: Docker $(docker version --format '{{.Server.Version}}') (API $(docker version --format '{{.Server.APIVersion}}'))," \
		"storage $(docker info --format '{{.Driver}}'), cgroup v$(docker info --format '{{.CgroupVersion}}'); $(docker compose version)"
else
	echo "engine: no Docker engine answers; dockerd's log ($DOCKERD_LOG) ends:" >&2
	tail -n 20 "$DOCKERD_LOG" >&2 || true
fi
