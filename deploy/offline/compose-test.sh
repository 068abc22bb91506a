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
if docker version >/dev/null 2>&1; then
	deploy/offline/standins.sh
	trap 'docker compose -p lblabtest -f deploy/compose.yaml -f deploy/offline/compose.yaml down -v --remove-orphans --timeout 15 >/dev/null 2>&1 || true' EXIT
fi
LBLAB_COMPOSE_TEST=1 "$GO" test -v -count=1 -timeout 60m -run '^TestComposeLab$' ./internal/deploytest
