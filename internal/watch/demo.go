package watch

import (
	_ "embed"

	"github.com/lblab/lblab/internal/labfile"
)

//go:embed demo.yaml
var demoFile []byte

// DemoLab is the lab `lab watch` plays when given none: round robin, then
// least-outstanding, a server crashes and comes back (demo.yaml).
func DemoLab() (*labfile.Lab, error) { return labfile.Parse("internal/watch/demo.yaml", demoFile) }
