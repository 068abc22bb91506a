package dash

// Playback is lab watch's playback state on the virtual clock, in every
// snapshot it publishes and in its answers that change it (GET and POST
// /api/playback, POST /api/scenario, POST /api/lab).
type Playback struct {
	Speed     float64  `json:"speed"` // virtual seconds per wall second (ignored with max)
	Max       bool     `json:"max"`   // as fast as possible
	Paused    bool     `json:"paused"`
	Ended     bool     `json:"ended"` // the run is over: every request has ended
	T         float64  `json:"t_s"`
	DurationS float64  `json:"duration_s"` // when the arrivals end
	PauseAtS  *float64 `json:"pause_at_s,omitempty"`
	MinSpeed  float64  `json:"min_speed"`
	MaxSpeed  float64  `json:"max_speed"`
	Drills    []string `json:"drills"` // the drills taken, as script events
	Demo      bool     `json:"demo"`   // the demo loops until the first touch
	Loops     int      `json:"loops"`  // times it started again
	// Published counts the snapshots published: in a snapshot, its own
	// number; in a POST's answer, that of the snapshot showing the change
	// (the page's seek slider waits for it).
	Published uint64 `json:"published"`
	Work      *Work  `json:"work,omitempty"` // a long request going on (Compare all, the JSON report)
	// Stopped is why the run played ended early: a guard stopped it (its
	// cost budget: what it spent and how to raise the budget).
	Stopped string `json:"stopped,omitempty"`
	// SeekingToS is where a move goes (lab watch: a seek, a step or a
	// drill's replay, carried out in slices while the API answers), t_s
	// being the instant its replay is at; absent when none goes on.
	// SeekingEvent says the move is step_event's: from seeking_to_s on it
	// goes bin by bin to the event log's next line.
	SeekingToS   *float64 `json:"seeking_to_s,omitempty"`
	SeekingEvent bool     `json:"seeking_event,omitempty"`
}

// Work is a long request going on (Compare all, the JSON report): what
// it is and the share of its runs done, in every snapshot while it lasts
// (playback.work), told at most every so often of wall time (lab watch's
// workEvery).
type Work struct {
	What string  `json:"what"` // the request, as the page names it: "compare all", "JSON report"
	Done float64 `json:"done"` // from 0 to 1 (sim.Options.Progress)
}
