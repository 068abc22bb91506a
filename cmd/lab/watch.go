package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	labcontrol "github.com/lblab/lblab/internal/lab/control"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/wire"
	"github.com/lblab/lblab/internal/watch"
)

func watchCommand() *cobra.Command {
	var listen, setting, mapFile string
	var speed, maxCost float64
	var paused, verbose bool
	var af accessFlags
	cmd := &cobra.Command{
		Use:   "watch [FILE|SCENARIO]",
		Short: "Watch a lab run in the simulator, on the live dashboard, at any playback speed",
		Long: `watch plays a lab (or a built-in scenario) in the deterministic simulator and
serves the live dashboard on --listen, driven by virtual time instead of
processes: nothing to start but this command. Playback runs from 0.1x to 1000x
or as fast as possible, pauses, steps a 250 ms bin, seeks and restarts; the
numbers at a virtual instant are the same at any speed. Drills from the page
join the lab's script at the virtual instant they were taken, and "save"
downloads that lab file: lab sim on it gives the numbers the page showed.

Without a lab it plays a short demo (round robin, then least-outstanding, a
server crashes and comes back) that loops until the page is first touched.

The lab plays its first compare setting (as the dashboard's scenario picker
does) unless --setting names another, or an algorithm. The API is the live
controller's (GET /api/snapshot, /api/stream, /api/scenarios, POST /api/chaos,
/api/scenario) plus GET and POST /api/playback, GET /api/lab.yaml, POST
/api/compare (Compare all: every compare setting on the same stream, ranked as
lab sim ranks them), GET /api/report.json (lab sim --json of the lab as given),
POST /api/lab and GET /api/source (your own lab file), GET and POST /api/map
and POST /api/map/cell (the metastability map); see docs/dashboard.md.

--map FILE.json shows a metastability map of the lab (the JSON of lab sweep
LAB --vary ... --vary ... --json) in the page: a click on a cell plays that
cell from 0, its two values applied as lab sweep applies them.
make site serves the same page with no process behind it (docs/site.md).`,
		Example: `  lab watch
  lab watch rr-slow
  lab watch rr-slow --setting p2c --speed 5
  lab watch my-lab.yaml --paused
  lab watch retry-storm --map map.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := watch.CheckSpeed(speed); err != nil {
				return usageError{fmt.Errorf("--%w", err)}
			}
			b, err := budget(maxCost)
			if err != nil {
				return err
			}
			demo := len(args) == 0
			var lab *labfile.Lab
			if demo {
				lab, err = watch.DemoLab()
			} else {
				lab, err = loadLab(args[0])
			}
			if err != nil {
				return err
			}
			played, err := pickSetting(lab, setting)
			if err != nil {
				return usageError{err}
			}
			name := played.Name
			if name != "" {
				// checked here to name the flag; watch applies it as lab
				// sim applies a compare setting, to the lab as given
				if _, err := lab.WithSetting(played); err != nil {
					return usageError{fmt.Errorf("--setting %s: %w", name, err)}
				}
			}
			if err := af.check("--listen", listen); err != nil {
				return err
			}
			if listen, err = labcontrol.ListenAddr("--listen", listen); err != nil {
				return usageError{err}
			}
			scenario, file := "", []byte(nil)
			if !demo {
				if _, err := os.Stat(args[0]); err != nil { // not a file: a built-in scenario
					scenario = args[0]
				} else if file, err = os.ReadFile(args[0]); err != nil { // GET /api/source: the file as given
					return usageError{err}
				}
			}
			var mapJSON []byte
			if mapFile != "" {
				if mapJSON, err = os.ReadFile(mapFile); err != nil {
					return usageError{fmt.Errorf("--map: %w", err)}
				}
			}
			srv, err := watch.New(watch.Options{Lab: lab, Scenario: scenario, Setting: name, Speed: speed,
				File: fileName(args), Source: file, MapFile: mapFile, Map: mapJSON,
				Paused: paused, Demo: demo, Access: af.access, Log: wire.Logger("lab", verbose), Budget: b})
			if err != nil {
				return usageError{err}
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return usageError{fmt.Errorf("--listen %s: %w", listen, err)}
			}
			url := "http://" + ln.Addr().String() + "/"
			if af.access.Token != "" {
				url += "?" + wire.TokenQuery + "=" + af.access.Token
			}
			what := lab.Name
			if name != "" {
				what += " (" + name + ")"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "dashboard:  %s\nlab watch: %s on the virtual clock, %gx; Ctrl-C stops\n", url, what, speedOr1(speed))
			ctx, stop := interruptible()
			defer stop()
			return srv.Serve(ctx, ln)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", labcontrol.DefaultControllerAddr, "the dashboard's address")
	cmd.Flags().StringVar(&setting, "setting", "", "the compare setting (or algorithm) to play (default: the lab's first compare setting, if any)")
	cmd.Flags().Float64Var(&speed, "speed", 1, fmt.Sprintf("playback speed, virtual seconds per second (%g to %g)", watch.MinSpeed, watch.MaxSpeed))
	cmd.Flags().BoolVar(&paused, "paused", false, "start paused at virtual 0")
	cmd.Flags().StringVar(&mapFile, "map", "", "show this metastability map of the lab (the JSON of lab sweep --json over two axes); a click on a cell plays it")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "debug logging")
	costFlag(cmd, &maxCost)
	af.add(cmd, "the token the dashboard requires (default: $"+wire.TokenEnv+"; none on loopback)")
	return cmd
}

func speedOr1(v float64) float64 {
	if v == 0 {
		return 1
	}
	return v
}

// pickSetting is the compare setting lab watch plays: --setting (a compare
// entry's name or an algorithm), else the lab's first compare entry (the
// zero setting if it has none).
func pickSetting(lab *labfile.Lab, flag string) (labfile.Setting, error) {
	if flag == "" {
		return watch.FirstSetting(lab), nil
	}
	s, err := watch.SettingNamed(lab, flag)
	if err != nil {
		return s, fmt.Errorf("--setting %w", err)
	}
	return s, nil
}

// fileName is the name GET /api/source gives a lab file watched (its
// base name; "" for the demo).
func fileName(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return filepath.Base(args[0])
}
