#!/usr/bin/env bash
# make compose-test: the compose lab under a real Docker engine (docs/compose.md,
# "How it is tested"). Installs and starts what is missing (engine.sh), makes
# the stand-in images (standins.sh), then runs TestComposeLab, which builds
# and brings up deploy/compose.yaml and takes it down again. What an earlier
# run of the project left is removed first; whatever happens (SIGINT and
# SIGTERM included), the lab is taken down on exit (the test does so too,
# unless it is killed by its timeout).
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
# The project's clean-up: every container, network and volume of
# lblabtest, whatever state an earlier run left them in.
down() {
	docker compose -p lblabtest -f deploy/compose.yaml -f deploy/offline/compose.yaml \
		down -v --remove-orphans --timeout 15 >/dev/null 2>&1 || true
}
if docker version >/dev/null 2>&1; then
	deploy/offline/standins.sh
	# An earlier run stopped part-way (a timeout, Ctrl-C, a killed terminal)
	# leaves its containers, whose names the next `up` would conflict with.
	echo "compose-test: removing what an earlier run of project lblabtest left"
	down
	trap down EXIT
fi
# The test runs in the background, in its own process group (set -m), so
# that a SIGINT or SIGTERM to this script is handled at once (bash defers
# traps while a foreground child runs, and would start a background one
# with SIGINT ignored): the test's group is interrupted, then the EXIT trap
# takes the lab down.
set -m
LBLAB_COMPOSE_TEST=1 "$GO" test -v -count=1 -timeout 60m -run '^TestComposeLab$' ./internal/deploytest &
test_pid=$!
stopped() {
	echo "compose-test: $1: stopping the test and taking the lab down" >&2
	kill -INT -- "-$test_pid" 2>/dev/null || true
	wait "$test_pid" 2>/dev/null || true
	exit "$2"
}
trap 'stopped SIGINT 130' INT
trap 'stopped SIGTERM 143' TERM
wait "$test_pid"
