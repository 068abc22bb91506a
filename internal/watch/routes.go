package watch

import "github.com/lblab/lblab/internal/lab/dash"

// routeTable is the dashboard's API on the virtual clock: the routes both
// clocks serve (dash.SharedRoutes, answered by the Server as a dash.Clock)
// and lab watch's own. lab watch's server serves it over HTTP (Handler,
// serve.go), the page's wasm module in memory (Answer), with the same
// code. Every POST is a touch: it ends the demo loop first (touched).
func (s *Server) routeTable() []dash.Route {
	table := dash.Table(s,
		dash.Route{Method: "GET", Path: "/api/playback", Doc: "the playback state: speed, pause, the instant reached, the drills taken",
			H: dash.Typed(s.getPlayback)},
		dash.Route{Method: "POST", Path: "/api/playback", Doc: "change playback: restart, seek_s, speed, max, paused, pause_at_s, step, step_event",
			H: dash.TypedBody(s.playback)},
		dash.Route{Method: "GET", Path: "/api/lab.yaml", Doc: "the lab with the drills taken in its script, a file lab sim runs",
			H: s.labFile},
		dash.Route{Method: "POST", Path: "/api/compare", Doc: "Compare all: every compare setting run on the same stream, ranked (seeds: over N seeds)",
			H: dash.WithBody(s.compareAll)},
		dash.Route{Method: "POST", Path: "/api/lab", Doc: "play a lab file from 0: file, yaml, seed, max_cost",
			H: dash.TypedBody(s.runLab)},
		dash.Route{Method: "GET", Path: "/api/source", Doc: "the lab file being played as given: file, yaml, seed",
			H: dash.Typed(s.getSource)},
		dash.Route{Method: "GET", Path: "/api/report.json", Doc: "lab sim --json of the lab file being played, every compare setting",
			H: s.report},
		dash.Route{Method: "POST", Path: "/api/fleet", Doc: "rebuild the fleet and play from 0: count, workers, queue, distribution",
			H: dash.TypedBody(s.rebuildFleet)},
		dash.Route{Method: "GET", Path: "/api/map", Doc: "the metastability map shown (lab watch --map, or one posted), and the cell playing",
			H: s.handleGetMap},
		dash.Route{Method: "POST", Path: "/api/map", Doc: "show a metastability map: lab sweep --json of this lab over two axes",
			H: s.handleMap},
		dash.Route{Method: "POST", Path: "/api/map/cell", Doc: "play one cell of the map from 0: its axes' values, setting and seed",
			H: s.handleMapCell},
	)
	for i := range table {
		if table[i].Method == "POST" {
			table[i].H = s.touched(table[i].H)
		}
	}
	return table
}

// Routes is the server's API (routeTable): what Handler serves over HTTP
// and Answer in memory.
func (s *Server) Routes() []dash.Route { return s.api }
