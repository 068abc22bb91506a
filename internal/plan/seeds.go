package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lblab/lblab/internal/labfile"
)

// MaxSeeds bounds --seeds: a typo like 1-3000000 would otherwise run for hours.
const MaxSeeds = 10000

// ParseSeeds reads --seeds: "N" is seeds 1 to N; "A-B" seeds A to B; a
// comma list takes seeds and ranges as written ("7,9,11", "1-5,9"). Seed i
// runs the lab with seed: i. At least two seeds, none twice.
func ParseSeeds(spec string) ([]uint64, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("--seeds %s: "+format, append([]any{spec}, a...)...)
	}
	spec = strings.TrimSpace(spec)
	if n, err := strconv.ParseUint(spec, 10, 64); err == nil { // a count
		if n < 2 {
			return nil, bad("give at least 2 seeds for intervals (a count N runs seeds 1 to N; for one seed use --seed)")
		}
		if n > MaxSeeds {
			return nil, bad("at most %d seeds", MaxSeeds)
		}
		spec = "1-" + spec
	}
	var seeds []uint64
	seen := map[uint64]bool{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		lo, hi, isRange := strings.Cut(item, "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, bad("%q is not a seed (want N, A-B, or a comma list like 7,9,11)", item)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil {
				return nil, bad("%q is not a range of seeds (want A-B, like 1-30)", item)
			}
			if b < a {
				return nil, bad("the range %s is empty: its first seed must not exceed its last", item)
			}
		}
		if b-a >= MaxSeeds || len(seeds)+int(b-a) >= MaxSeeds {
			return nil, bad("at most %d seeds", MaxSeeds)
		}
		for s := a; ; s++ {
			if seen[s] {
				return nil, bad("seed %d is given twice", s)
			}
			seen[s] = true
			seeds = append(seeds, s)
			if s == b {
				break
			}
		}
	}
	if len(seeds) < 2 {
		return nil, bad("give at least 2 seeds for intervals (for one seed use --seed)")
	}
	return seeds, nil
}

// WithSeeds returns one copy of lab per seed.
func WithSeeds(lab *labfile.Lab, seeds []uint64) []*labfile.Lab {
	labs := make([]*labfile.Lab, len(seeds))
	for i, s := range seeds {
		labs[i] = lab.Clone()
		labs[i].Seed = s
	}
	return labs
}
