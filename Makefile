# lblab — see README.md. `make test` is what CI runs (through .ci/run).
GO      ?= go
# Fuzz budgets are counts of inputs, not durations: a duration races the fuzz
# coordinator's own deadline and can fail with a bare "context deadline
# exceeded" on a loaded machine (golang/go#75804) though no input failed.
FUZZTIME ?= 100000x
PKGS    := ./...

.PHONY: pgo race build test unit lab sim bench fuzz lint vet compose-check compose-test k8s-check web web-check site torture torture-live

build:
	$(GO) build -buildvcs=auto -o bin/ ./cmd/...

# The live playground until Ctrl-C: the dashboard is at http://127.0.0.1:8000,
# the balancer at http://127.0.0.1:8080. It uses the committed dashboard bundle
# (make web-check keeps it in step with web/), so it needs no Node.js.
lab: build
	bin/lab up

# The lab in a browser tab (docs/site.md): site/ holds the dashboard, its
# Web Worker, wasm_exec.js and lab.wasm (the simulator and lab watch's code
# for GOOS=js GOARCH=wasm). Any static server serves it, for instance
# python3 -m http.server -d site, then http://127.0.0.1:8000. No Node.js
# needed: it copies the committed bundle.
site:
	$(GO) run ./cmd/labsite -o site -go $(GO)

sim:
	$(GO) run ./cmd/lab sim rr-slow --compare round-robin,least-outstanding,p2c

STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

vet:
	$(GO) vet $(PKGS)
	$(STATICCHECK) $(PKGS)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)

# make test runs TEST_STEPS in order (each a target below), every step even
# after one failed, then prints, last: the tests that were skipped because a
# tool is not installed (chromium, prometheus and promtool, hey, nginx;
# under CI they fail instead) and one line saying which steps passed or
# failed and how long it took. A new step is one more word in the list.
TEST_STEPS := vet unit k8s-check race fuzz torture torture-live

test:
	@skips=$$(mktemp); start=$$(date +%s); passed=; failed=; \
	echo "make test: $(TEST_STEPS) (about 15 minutes on a 2-core machine; the first run also fetches modules)"; \
	for step in $(TEST_STEPS); do \
		echo; echo "make test: step $$step"; \
		if LBLAB_SKIPS=$$skips $(MAKE) --no-print-directory $$step; then passed="$$passed $$step"; else failed="$$failed $$step"; fi; \
	done; \
	skipped=$$(sort -u $$skips | wc -l); \
	if [ -s $$skips ]; then echo; echo "SKIPPED - these tests did not run (see README, Set up):"; sort -u $$skips | sed 's/^/  /'; fi; \
	rm -f $$skips; echo; \
	summary="in $$(( ($$(date +%s) - start) / 60 ))m$$(( ($$(date +%s) - start) % 60 ))s, $$skipped tests skipped"; \
	if [ -n "$$failed" ]; then echo "make test: FAILED:$$failed; passed:$${passed:- none} ($$summary)"; exit 1; fi; \
	echo "make test: passed:$$passed ($$summary)"

# Every package's tests (go test ./...); make test runs it as its step unit.
unit:
	$(GO) test -count=1 -timeout 15m $(PKGS)

# Random labs with random chaos through the simulator's invariant checks
# (docs/reliability.md); it prints how many labs and requests it ran.
TORTURE_RUNS ?= 1000
torture:
	$(GO) run ./cmd/lab torture --runs $(TORTURE_RUNS)

# Random small labs on real processes with drills and process faults (SIGSTOP,
# SIGKILL, CPU starvation), one after the other, about 3.5 s each: 40 take
# 2-3 minutes on 2 cores. A failure is shrunk with at most 10 more live runs.
TORTURE_LIVE_RUNS ?= 40
torture-live:
	$(GO) run ./cmd/lab torture --live --runs $(TORTURE_LIVE_RUNS) --shrink-runs 10

# The packages with goroutines (the shells) under the race detector.
race:
	$(GO) test -race -count=1 -timeout 10m ./internal/shell/...

# Short fuzz runs of the lab-file decoder, the pickers and the trace reader
# (FUZZTIME inputs each; FUZZTIME=30s for a timed run by hand).
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./internal/labfile/labyaml
	$(GO) test -run '^$$' -fuzz '^FuzzPick$$' -fuzztime $(FUZZTIME) ./internal/core/balance
	$(GO) test -run '^$$' -fuzz '^FuzzReplay$$' -fuzztime $(FUZZTIME) ./internal/workload

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./internal/sim ./internal/core/...

# Profile-guided optimisation: cmd/lab/default.pgo (a CPU profile of the
# simulator's benchmarks) makes `go build ./cmd/lab` inline the hot paths;
# refresh it after large changes to the simulator or the policy core.
pgo:
	$(GO) test -run '^$$' -bench 'SimEvents|CompareSix|Herd1000/p2c' -benchtime 3s -cpu 1 \
		-o /tmp/lblab-sim.test -cpuprofile /tmp/lblab-sim.pgo ./internal/sim
	cp /tmp/lblab-sim.pgo cmd/lab/default.pgo

lint: vet

# The compose lab, checked statically (no Docker engine here): the compose file,
# every service's command line, ports, promtool, dashboards vs documented metrics.
compose-check:
	$(GO) test -count=1 ./internal/deploytest

# The compose lab under a real Docker engine (docs/compose.md, "How it is
# tested"): installs docker.io and the compose plugin if missing, starts
# dockerd, makes stand-ins for the images it cannot pull, builds lblab:local
# from deploy/Dockerfile, brings deploy/compose.yaml up, drills, scales 5 ->
# 8 -> 5 and takes it down. Not part of make test: .ci/run runs it as a step.
compose-test:
	GO=$(GO) deploy/offline/compose-test.sh

# The Kubernetes manifests (deploy/k8s, and the sweep Job of deploy/k8s/sweep,
# whose slices it runs and merges), rendered with the kustomize API and
# checked against k8s.io/api types and the binaries' flags (docs/kubernetes.md).
# Its own Go module keeps the Kubernetes modules out of lblab's go.mod.
k8s-check:
	cd deploy/k8stest && $(GO) vet ./... && $(STATICCHECK) ./... && $(GO) test -count=1 ./...

# The dashboard: web/ bundled by esbuild (uPlot from npm) into
# internal/lab/webui/dist, which Go embeds. The bundle is committed, so
# go build needs no node; web-check fails if it is stale.
web:
	cd web && npm ci --no-audit --no-fund && npm run build

web-check: web
	@git diff --quiet -- internal/lab/webui/dist || (echo "internal/lab/webui/dist is stale: run make web and commit it"; git diff --stat -- internal/lab/webui/dist; exit 1)
	@test -z "$$(git ls-files --others --exclude-standard internal/lab/webui/dist)" || (echo "internal/lab/webui/dist has new files: run make web and commit them"; exit 1)
