// Package wasmprims holds benchmarks of the operations the simulator's event
// loop is made of (a call, a slice access, a switch, a map lookup, math.Log
// and math.Exp, ...), one loop each, to be run natively and as js/wasm in the
// same sitting: bench/wasm-primitives.sh prints what each costs in wasm next
// to native. They say how fast Go's wasm port can run the page's simulator
// (docs/BENCHMARKS.md, "The page"). Nothing outside the benchmarks is here.
package wasmprims
