package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lblab/lblab/internal/plan"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/verdict"
	"github.com/lblab/lblab/internal/sim"

	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// partFormat is the version of a sweep part file.
const partFormat = 1

// sweepPart is one shard's partial result of a sweep (--shard I/N): the
// plan's shape, a fingerprint of everything that decides the runs, and the
// runs of its slice, each by its number in plan order.
type sweepPart struct {
	Format int        `json:"lblab_sweep_part"`
	Plan   string     `json:"plan"` // sha256 of the labs, the settings and the shape
	Shard  int        `json:"shard"`
	Shards int        `json:"shards"`
	Total  int        `json:"runs_total"`
	Meta   plan.Meta  `json:"meta"`
	Runs   []shardRun `json:"runs"`
}

type shardRun struct {
	K   int        `json:"k"`
	Run report.Run `json:"run"`
}

// parseShard reads --shard I/N: slice I (0 to N-1, a Kubernetes Indexed
// Job's completion index) of N.
func parseShard(spec string) (int, int, error) {
	a, b, ok := strings.Cut(spec, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case !ok || err1 != nil || err2 != nil:
		return 0, 0, usageError{fmt.Errorf("--shard %s: want I/N, like 0/3 (slice I of N, counted from 0)", spec)}
	case n < 1 || n > plan.MaxSweepRuns:
		return 0, 0, usageError{fmt.Errorf("--shard %s: N must be 1 to %d", spec, plan.MaxSweepRuns)}
	case i < 0 || i >= n:
		return 0, 0, usageError{fmt.Errorf("--shard %s: I must be 0 to %d (slices are counted from 0)", spec, n-1)}
	}
	return i, n, nil
}

// shardRuns are the runs of slice i of n: every n-th run from i, so that
// each slice gets its share of every grid point and setting (cheap and
// dear points alike).
func shardRuns(total, i, n int) []int {
	var ks []int
	for k := i; k < total; k += n {
		ks = append(ks, k)
	}
	return ks
}

// fingerprint identifies the runs a plan makes: every lab as it will run,
// the settings and the shape. Parts of different sweeps do not merge.
func fingerprint(p *plan.Sweep, meta plan.Meta) (string, error) {
	h := sha256.New()
	for _, l := range p.Labs {
		y, err := labyaml.Marshal(l)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%d\n", len(y))
		h.Write(y)
	}
	enc := json.NewEncoder(h)
	if err := enc.Encode(p.Settings); err != nil {
		return "", err
	}
	if err := enc.Encode(meta); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// runShard runs one slice of a simulated sweep and writes its part.
func runShard(p *plan.Sweep, b plan.Batch, f sweepFlags, out, errOut io.Writer) error {
	i, n, err := parseShard(f.shard)
	if err != nil {
		return err
	}
	if f.live || f.json || f.csv != "" || f.plot != "" {
		return usageError{errors.New("--shard: a shard writes its part only, in simulated time: give --json, --csv and --plot to lab sweep merge (not --live)")}
	}
	meta := p.Meta("sim")
	fp, err := fingerprint(p, meta)
	if err != nil {
		return err
	}
	ks := shardRuns(b.Runs(), i, n)
	fmt.Fprintf(errOut, "lab sweep %s: shard %d/%d: %d of the %s\n", p.Lab.Name, i, n, len(ks), p.Size())
	verdicts := verdict.HasTransients(p.Lab) // the series, for the recovery verdicts, as a whole sweep
	runs, err := simRunner(sim.Options{Series: verdicts}).RunSome(b, ks, errOut)
	if err != nil {
		return err
	}
	part := sweepPart{Format: partFormat, Plan: fp, Shard: i, Shards: n, Total: b.Runs(), Meta: meta}
	for x, k := range ks {
		part.Runs = append(part.Runs, shardRun{K: k, Run: runs[x].WithoutSeries()}) // the verdicts are in (plan.Sim.RunSome); the series they needed go
	}
	write := func(w io.Writer) error { return json.NewEncoder(w).Encode(part) }
	if f.part == "" || f.part == "-" {
		return write(out)
	}
	if err := writeFile(f.part, write); err != nil {
		return err
	}
	fmt.Fprintf(errOut, "part written to %s (lab sweep merge it with the others)\n", f.part)
	return nil
}

func sweepMergeCommand() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "merge PART...",
		Short: "Merge the parts of a sharded sweep (--shard I/N) into its report",
		Long: `merge reads the parts that lab sweep ... --shard I/N wrote, one per slice
0 to N-1 in any order, checks that they are the slices of one sweep, each
once, and prints the sweep's report: the table, or with --json the JSON, and
--csv and --plot as lab sweep writes them. The result is byte for byte what
the same sweep run whole prints (docs/sweeps.md).`,
		Example: `  lab sweep slow-server --vary clients.rate=50:350:25 --seeds 10 --shard 0/3 --part part-0.json
  lab sweep merge part-*.json --plot sweep.png`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return mergeSweep(args, f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.json, "json", false, "print the JSON sweep report (docs/report.md) instead of the table")
	fl.StringVar(&f.csv, "csv", "", "also write one row per point and setting to FILE.csv")
	fl.StringVar(&f.plot, "plot", "", "also draw p99 against the first axis into FILE.svg or FILE.png")
	return cmd
}

// partPrefix begins every part's line.
var partPrefix = []byte(`{"lblab_sweep_part":`)

// readParts reads the parts in one file: each is one line, and other lines
// are skipped, so that one file may hold the logs of many shards (kubectl
// logs of an Indexed Job's pods, stdout and stderr together).
func readParts(path string) ([]*sweepPart, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError{err}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), maxPartLine)
	var parts []*sweepPart
	for line := 1; sc.Scan(); line++ {
		if !bytes.HasPrefix(sc.Bytes(), partPrefix) {
			continue
		}
		var part sweepPart
		if err := json.Unmarshal(sc.Bytes(), &part); err != nil {
			return nil, usageError{fmt.Errorf("%s:%d: a damaged sweep part: %v", path, line, err)}
		}
		if part.Format != partFormat {
			return nil, usageError{fmt.Errorf("%s:%d: a sweep part of format %d; this lab reads format %d", path, line, part.Format, partFormat)}
		}
		parts = append(parts, &part)
	}
	if err := sc.Err(); err != nil {
		return nil, usageError{fmt.Errorf("%s: %v", path, err)}
	}
	if len(parts) == 0 {
		return nil, usageError{fmt.Errorf("%s: not a sweep part, and holds none (lab sweep ... --shard I/N writes them)", path)}
	}
	return parts, nil
}

// maxPartLine bounds one part's line: a slice of a sweep of plan.MaxSweepRuns.
const maxPartLine = 1 << 30

// mergeSweep checks the parts and prints the sweep they make.
func mergeSweep(paths []string, f sweepFlags, out, errOut io.Writer) error {
	if err := checkPlotPath(f.plot); err != nil {
		return usageError{err}
	}
	var first *sweepPart
	var runs []report.Run
	var have []bool
	from := map[int]string{}
	var all []*sweepPart
	var where []string
	for _, path := range paths {
		parts, err := readParts(path)
		if err != nil {
			return err
		}
		for range parts {
			where = append(where, path)
		}
		all = append(all, parts...)
	}
	for n, part := range all {
		path := where[n]
		if first == nil {
			first, runs, have = part, make([]report.Run, part.Total), make([]bool, part.Total)
		}
		switch {
		case part.Plan != first.Plan:
			return usageError{fmt.Errorf("%s holds a part of another sweep than %s's (a different lab, grid, settings or seeds)", path, where[0])}
		case part.Shards != first.Shards:
			return usageError{fmt.Errorf("%s holds slice %d of %d, %s of %d: merge the parts of one --shard count", path, part.Shard, part.Shards, where[0], first.Shards)}
		case from[part.Shard] != "":
			return usageError{fmt.Errorf("%s and %s both hold slice %d/%d", from[part.Shard], path, part.Shard, part.Shards)}
		}
		from[part.Shard] = path
		want := shardRuns(part.Total, part.Shard, part.Shards)
		if len(part.Runs) != len(want) {
			return usageError{fmt.Errorf("%s: slice %d/%d holds %d runs, want %d", path, part.Shard, part.Shards, len(part.Runs), len(want))}
		}
		for x, r := range part.Runs {
			if r.K != want[x] {
				return usageError{fmt.Errorf("%s: run %d is not of slice %d/%d", path, r.K, part.Shard, part.Shards)}
			}
			runs[r.K], have[r.K] = r.Run, true
		}
	}
	var missing []string
	for i := range first.Shards {
		if from[i] == "" {
			missing = append(missing, fmt.Sprintf("%d/%d", i, first.Shards))
		}
	}
	if len(missing) > 0 {
		return usageError{fmt.Errorf("missing slices %s of the sweep (lab sweep ... --shard I/N runs each)", strings.Join(missing, ", "))}
	}
	fmt.Fprintf(errOut, "lab sweep merge: %d parts, %d runs of %s\n", len(all), first.Total, first.Meta.Header.Lab)
	return writeSweep(first.Meta.Assemble(runs), f, out, errOut)
}
