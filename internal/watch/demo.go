package watch

import (
	_ "embed"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

//go:embed demo.yaml
var demoFile []byte

// DemoLab is the lab `lab watch` plays when given none: round robin, then
// least-outstanding, a server crashes and comes back (demo.yaml).
func DemoLab() (*labfile.Lab, error) { return labyaml.Parse(demoPath, demoFile) }

// demoPath is the name the demo's errors and GET /api/source give it.
const demoPath = "internal/watch/demo.yaml"
