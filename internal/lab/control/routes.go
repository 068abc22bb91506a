package control

import (
	"net/http"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/lab/webui"
)

// Routes is the controller's API on the wall clock: the routes both
// clocks serve (dash.SharedRoutes, answered by the Controller as a
// dash.Clock) and the controller's own.
func (c *Controller) Routes() []dash.Route {
	return dash.Table(c,
		dash.Route{Method: "GET", Path: "/api/state", Doc: "every process's own /admin/state, and the whole event log",
			H: dash.Typed(c.state)},
		dash.Route{Method: "GET", Path: "/api/sd", Doc: "every process's admin address, for Prometheus's http_sd_configs",
			H: dash.Typed(c.sd)},
	)
}

// routes is the controller's API and the page; a request no route takes
// gets the API's JSON 404 or 405 (dash.Routes), as lab watch's does.
func (c *Controller) routes() http.Handler { return dash.Handler(c.Routes(), webui.Handler()) }
