#!/usr/bin/env bash
# What each operation of the simulator's event loop costs when Go compiles
# it for js/wasm, next to the same code native, in one sitting
# (docs/BENCHMARKS.md, "The page"): bench/wasmprims's benchmarks run
# natively, under Node and in headless chromium (or $CHROMIUM), two counts
# each; the table gives ns/op and native/wasm (the share of native speed
# that wasm keeps). Its last row is the whole event loop, internal/sim's
# BenchmarkSimEvents (ns an event; both builds with lab's profile), native
# and under Node; bench/site.sh has it in the page. Usage: bench/wasm-primitives.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
goroot=$(go env GOROOT)
exec_js=$goroot/lib/wasm/wasm_exec.js
[ -f "$exec_js" ] || exec_js=$goroot/misc/wasm/wasm_exec.js
cp "$exec_js" "$work/"
go test -c -o "$work/prims.native" ./bench/wasmprims
GOOS=js GOARCH=wasm go test -c -o "$work/prims.wasm" ./bench/wasmprims
pgo=-pgo=$PWD/cmd/lab/default.pgo
go test -c $pgo -o "$work/sim.native" ./internal/sim
GOOS=js GOARCH=wasm go test -c $pgo -o "$work/sim.wasm" ./internal/sim
bench=(-test.run '^$' -test.bench . -test.count 2)
simbench=(-test.run '^$' -test.bench '^BenchmarkSimEvents$' -test.benchtime 10x -test.count 2)
"$work/prims.native" "${bench[@]}" | grep '^Benchmark' >"$work/native.txt"
node --stack-size=8192 "$(dirname "$exec_js")/wasm_exec_node.js" "$work/prims.wasm" "${bench[@]}" | grep '^Benchmark' >"$work/node.txt"
node_exec="node --stack-size=8192 $(dirname "$exec_js")/wasm_exec_node.js"
"$work/sim.native" "${simbench[@]}" | grep '^Benchmark' >>"$work/native.txt"
$node_exec "$work/sim.wasm" "${simbench[@]}" | grep '^Benchmark' >>"$work/node.txt"
LBLAB_PRIMS_DIR=$work go test -count=1 -run '^TestPrimitivesInChromium$' ./bench/wasmprims -v | grep '^Benchmark' >"$work/chromium.txt"
python3 - "$work" <<'PY'
import re, sys, collections
def read(name):
    t = collections.defaultdict(list)
    for line in open(f"{sys.argv[1]}/{name}.txt"):
        f = line.split()
        t[re.sub(r"-\d+$", "", f[0])[len("Benchmark"):]].append(float(f[2]))
    return t
n, nd, ch = read("native"), read("node"), read("chromium")
ev = {name: [float(m) for m in re.findall(r"(\d+) events/s", open(f"{sys.argv[1]}/{name}.txt").read())] for name in ("native", "node")}
print(f"{'operation':<8} {'native ns':>10} {'node ns':>9} {'chromium ns':>12} {'native/node':>12} {'native/chromium':>16}")
for k in n:
    a, b = min(n[k]), min(nd[k])
    if k == "SimEvents":  # ns/op is a whole run: ns an event from events/s
        a, b = 1e9 / max(e for e in ev["native"]), 1e9 / max(e for e in ev["node"])
        print(f"{'an event':<8} {a:>10.2f} {b:>9.2f} {'(site.sh)':>12} {a/b:>12.2f} {'':>16}")
        continue
    c = min(ch[k])
    print(f"{k:<8} {a:>10.2f} {b:>9.2f} {c:>12.2f} {a/b:>12.2f} {a/c:>16.2f}")
PY
