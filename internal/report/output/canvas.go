// Package output writes reports to disk: the --plot pictures of a report and
// of a sweep (gonum/plot), and the export files of a run (--record, --out,
// --hdr-log) and the traces it replays. Only the command lines import it, so
// the clock-free packages that fill a report (the client runtime, the
// simulator) link neither the plotting library nor the file system.
package output

import (
	"fmt"
	"os"

	"gonum.org/v1/plot/vg"
)

func writeCanvas(path string, c vg.CanvasWriterTo) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	return f.Close()
}
