// Package plan is what the command lines run many of: experiments. It reads
// their specifications (seed lists, a sweep's --vary axes and its knee
// rule), lays them out as a Batch (the labs, one per seed or per grid point
// and seed, each run under every setting) and runs a batch through a Runner
// on either clock: Sim, in parallel on every core, or Live, one run after
// another with an estimate of the time left (Progress). Every report of a
// batch comes back in the order of its labs and settings, however the runs
// were scheduled, so a sweep or a seeds table is the same whatever ran it
// (and a sharded sweep merges to the same bytes).
package plan
