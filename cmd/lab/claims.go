package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/plan"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/sim"
	"github.com/lblab/lblab/scenarios"
)

// errClaimsFailed is lab claims' and lab sim --claims' answer when a claim
// failed: exit status 1, after the table.
var errClaimsFailed = errors.New("some claims of the narration do not hold")

func claimsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "claims SCENARIO REPORT.json",
		Short: "Check a built-in scenario's narration, claim by claim, on a saved report (live or simulated)",
		Long: `claims reads a JSON report of a built-in scenario ("lab run SCENARIO --json --series"
or "lab sim SCENARIO --json --series"; - reads standard input) and checks each claim of the
scenario's narration on it: what holds before its trigger, during it and after it. A claim
the report cannot answer (no series, a setting it did not run, a figure its clock does not
measure) is "unmeasured". Exit status 1 when a claim fails (docs/scenarios.md).`,
		Example: `  lab run retry-storm --json --series --dashboard "" > live.json
  lab claims retry-storm live.json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := readReport(args[1], cmd.InOrStdin())
			if err != nil {
				return usageError{err}
			}
			if rep.Lab != args[0] {
				return usageError{fmt.Errorf("%s is a report of lab %q, not of %q", args[1], rep.Lab, args[0])}
			}
			results, err := scenarios.Check(args[0], rep)
			if err != nil {
				return usageError{err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: the narration's claims on the %s report, seed %d\n", rep.Lab, rep.Mode, rep.Seed)
			return printClaims(cmd.OutOrStdout(), [][]scenarios.Result{results}, []uint64{rep.Seed})
		},
	}
}

// readReport reads a JSON report from path ("-": in).
func readReport(path string, in io.Reader) (*report.Report, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(in)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("%s: not a JSON report: %w", path, err)
	}
	if rep.Lab == "" || len(rep.Runs) == 0 {
		return nil, fmt.Errorf("%s: not a lab report (no lab or no runs)", path)
	}
	return &rep, nil
}

// simClaims runs lab sim --claims: the settings on each seed (one seed
// without --seeds), with their series, and the narration's claims checked
// on every seed's report.
func simClaims(out, errOut io.Writer, lab *labfile.Lab, settings []labfile.Setting, seeds []uint64, f simFlags) error {
	if scenarios.Claims(lab.Name) == nil {
		return usageError{fmt.Errorf("--claims: %q is not a built-in scenario with claims (lab scenarios lists them)", lab.Name)}
	}
	if seeds == nil {
		seeds = []uint64{lab.Seed}
	}
	b := plan.Batch{What: "lab sim " + lab.Name, Labs: plan.WithSeeds(lab, seeds), Settings: settings}
	reps, err := simRunner(guarded(sim.Options{Series: true, Check: f.check, MaxPending: f.maxPending}, f.maxCost)).Run(context.Background(), b, errOut)
	if err != nil {
		return err
	}
	all := make([][]scenarios.Result, len(reps))
	for i, rep := range reps {
		if all[i], err = scenarios.Check(lab.Name, rep); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "%s: the narration's claims, simulated on %s\n", lab.Name, seedList(seeds))
	return printClaims(out, all, seeds)
}

// printClaims prints each claim with the seeds it held on (results[i] is
// seed seeds[i]'s), and the first seed's reason where it did not.
func printClaims(out io.Writer, results [][]scenarios.Result, seeds []uint64) error {
	failed := false
	for j, c := range results[0] {
		var held, unmeasured int
		var bad []string
		var why error
		for i := range results {
			r := results[i][j]
			switch {
			case r.Holds():
				held++
			case r.Unmeasured():
				unmeasured++
				why = r.Err
			default:
				bad = append(bad, fmt.Sprint(seeds[i]))
				if why == nil || errors.Is(why, report.ErrUnmeasured) {
					why = r.Err
				}
			}
		}
		verdict := "holds"
		switch {
		case len(bad) > 0 && len(results) == 1:
			verdict = "FAILS"
		case len(bad) > 0:
			verdict = fmt.Sprintf("holds on %d/%d", held, len(results))
		case unmeasured == len(results):
			verdict = "unmeasured"
		case len(results) > 1:
			verdict = fmt.Sprintf("holds on %d/%d", held, len(results))
		}
		failed = failed || len(bad) > 0
		fmt.Fprintf(out, "\n%-10s %s: %s\n  checks: %s\n", c.Phase, verdict, c.Says, c.Checks)
		if c.Some {
			fmt.Fprintln(out, "  declared to hold on some seeds only (the tests assert it on the lab's seed)")
		}
		if len(bad) > 0 && len(results) > 1 {
			fmt.Fprintf(out, "  fails on seeds %s\n", strings.Join(bad, ", "))
		}
		if why != nil {
			fmt.Fprintf(out, "  why: %v\n", why)
		}
	}
	if failed {
		return errClaimsFailed
	}
	return nil
}

// seedList is "seed 1" or "seeds 1-30" (or a comma list).
func seedList(seeds []uint64) string {
	if len(seeds) == 1 {
		return fmt.Sprintf("seed %d", seeds[0])
	}
	consecutive := true
	for i := 1; i < len(seeds); i++ {
		consecutive = consecutive && seeds[i] == seeds[i-1]+1
	}
	if consecutive {
		return fmt.Sprintf("seeds %d-%d", seeds[0], seeds[len(seeds)-1])
	}
	s := make([]string, len(seeds))
	for i, v := range seeds {
		s[i] = fmt.Sprint(v)
	}
	return "seeds " + strings.Join(s, ",")
}
