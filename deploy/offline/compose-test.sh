#!/usr/bin/env bash
# make compose-test: the compose lab under a real Docker engine (docs/compose.md,
# "How it is tested"). Installs and starts what is missing (engine.sh), makes
# the stand-in images (standins.sh), then runs TestComposeLab, which builds
# and brings up deploy/compose.yaml and takes it down again. Whatever
# happens, the lab is taken down on exit (the test does so too, unless it
# is killed by its timeout).
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
export DOCKERD_LOG=${DOCKERD_LOG:-/tmp/lblab-dockerd.log}
deploy/offline/engine.sh
# compose.yaml refuses to start without the admin token; TestComposeLab and
# the clean-up below use this one.
export LBLAB_TOKEN=${LBLAB_TOKEN:-compose-test-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')}
# Debian's prometheus package starts a service on :9090 where systemd runs;
# on a CI machine it is only there for promtool, and the lab publishes 9090.
if [ -n "${CI:-}" ] && systemctl is-active --quiet prometheus 2>/dev/null; then
	echo "compose-test: stopping Debian's prometheus service (it holds :9090, which the compose lab publishes)"
	systemctl stop prometheus
fi
if docker version >/dev/null 2>&1; then
	deploy/offline/standins.sh
	trap 'docker compose -p lblabtest -f deploy/compose.yaml -f deploy/offline/compose.yaml down -v --remove-orphans --timeout 15 >/dev/null 2>&1 || true' EXIT
fi
LBLAB_COMPOSE_TEST=1 "$GO" test -v -count=1 -timeout 60m -run '^TestComposeLab$' ./internal/deploytest
