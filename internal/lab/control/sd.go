package control

import "github.com/lblab/lblab/internal/lab/dash"

// SDTarget is one entry of Prometheus's HTTP service discovery format.
type SDTarget struct {
	Targets []string          `json:"targets"`
	Labels  map[string]string `json:"labels"`
}

// sd is GET /api/sd: every process's admin listener (where /metrics
// is) for Prometheus's http_sd_configs, so a Prometheus finds the lab's
// processes even though they listen on free ports. Empty between runs.
func (c *Controller) sd(dash.Request) ([]SDTarget, error) {
	out := []SDTarget{}
	if r := c.Current(); r != nil {
		procs, loadgen := r.Processes()
		for _, p := range append(procs, loadgen) {
			out = append(out, SDTarget{Targets: []string{p.Ready.Admin},
				Labels: map[string]string{"process": p.Role, "name": p.Name}})
		}
	}
	return out, nil
}
