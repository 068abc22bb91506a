#!/usr/bin/env bash
# make site's page next to native lab sim, in one run on one box
# (docs/BENCHMARKS.md, "The page"): the wasm module's size (raw and gzip -9),
# the time from opening the page in headless chromium to its first frame
# (cold: a new profile, nothing cached), and the simulator's events/s in the
# page's worker next to bin/lab's (PGO build) on the same lab file
# (mixed-fleet's three settings, 240 s each), both through lab sim's report.
# Needs chromium (or $CHROMIUM). Usage: bench/site.sh
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/lab ./cmd/lab
LBLAB_SITE_BENCH="$PWD/bin/lab" go test -count=1 -timeout 10m -run '^TestSiteFigures$' ./internal/site -v 2>&1 |
  grep -E '^(module|first frame|events/s):|FAIL|SKIP|ok'
