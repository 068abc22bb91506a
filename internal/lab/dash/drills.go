package dash

import (
	"encoding/json"
	"strings"

	"github.com/lblab/lblab/internal/labfile"
)

// The drills the page offers, read from labfile.Drills: every snapshot
// carries them (Snapshot.Drills), so the page's buttons, which drills a
// time box applies to and what the controls send come from the one table
// on both clocks, and a drill added there reaches the page with no edit of
// web/.

// PageDrill is one drill of labfile.Drills as the page reads it.
type PageDrill struct {
	Action string `json:"action"`
	// Undo is the action that ends it when time-boxed ("": it cannot be,
	// and NoUndo says why).
	Undo   string `json:"undo,omitempty"`
	NoUndo string `json:"no_undo,omitempty"`
	// Fields are the event fields it takes besides action and for (target
	// first when it takes one); Optional those it may go without.
	Fields   []string `json:"fields"`
	Optional []string `json:"optional"`
	Scope    string   `json:"scope"`       // servers | fleet | lab
	Zone     bool     `json:"zone"`        // its target is a zone
	Zones    bool     `json:"needs_zones"` // only a lab with zones takes it
	// Example is the event a one-click control sends (its target left
	// for the page to fill), and Text its words without the target (the
	// button's label); nil and "" when a field it needs has no example
	// (set: the page sends its paths from the settings' controls).
	Example *labfile.Event `json:"example"`
	Text    string         `json:"text,omitempty"`
}

// scopes are the words a PageDrill's scope takes.
var scopes = map[labfile.Scope]string{labfile.OnServers: "servers", labfile.OnFleet: "fleet", labfile.OnLab: "lab"}

// PageDrills are labfile.Drills as the page reads them, in the table's
// order.
func PageDrills() []PageDrill {
	out := make([]PageDrill, 0, len(labfile.Drills))
	for _, d := range labfile.Drills {
		p := PageDrill{Action: string(d.Action), Undo: string(d.Undo), NoUndo: d.NoUndo(),
			Fields: append([]string{}, d.Fields...), Optional: append([]string{}, d.Optional...),
			Scope: scopes[d.Scope], Zone: d.Zone, Zones: d.NeedsZones}
		if ev, ok := d.Example(); ok {
			p.Example = &ev
			p.Text = strings.TrimSpace(ev.String())
		}
		out = append(out, p)
	}
	return out
}

// DrillTable is the snapshot's drills field. Like FigureTable it holds
// nothing: it encodes as PageDrills whatever built the snapshot, and a
// decoded snapshot keeps nothing of it (decode the field as []PageDrill to
// read it).
type DrillTable struct{}

// MarshalJSON is PageDrills as JSON.
func (DrillTable) MarshalJSON() ([]byte, error) { return json.Marshal(PageDrills()) }

// UnmarshalJSON takes any value: the table is the build's own.
func (*DrillTable) UnmarshalJSON([]byte) error { return nil }
