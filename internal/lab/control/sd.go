package control

import "net/http"

// SDTarget is one entry of Prometheus's HTTP service discovery format.
type SDTarget struct {
	Targets []string          `json:"targets"`
	Labels  map[string]string `json:"labels"`
}

// handleSD is GET /api/sd: every process's admin listener (where /metrics
// is) for Prometheus's http_sd_configs, so a Prometheus finds the lab's
// processes even though they listen on free ports. Empty between runs.
func (c *Controller) handleSD(w http.ResponseWriter, _ *http.Request) {
	out := []SDTarget{}
	if r := c.Current(); r != nil {
		procs, loadgen := r.Processes()
		for _, p := range append(procs, loadgen) {
			out = append(out, SDTarget{Targets: []string{p.Ready.Admin},
				Labels: map[string]string{"process": p.Role, "name": p.Name}})
		}
	}
	writeJSON(w, 200, out)
}
