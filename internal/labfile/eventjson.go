package labfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// UnmarshalJSON reads an event as POST /api/chaos takes it: the lab file's
// field names, and durations (at, pause, for) either as text like "300ms"
// (what a person or the dashboard writes) or as a number of nanoseconds
// (what encoding/json writes for a time.Duration). Unknown fields are
// errors.
func (e *Event) UnmarshalJSON(data []byte) error {
	var in struct {
		At        jsonDuration      `json:"at"`
		Action    Action            `json:"action"`
		Target    string            `json:"target"`
		Speed     float64           `json:"speed"`
		Pause     jsonDuration      `json:"pause"`
		Share     float64           `json:"share"`
		Rate      float64           `json:"rate"`
		Algorithm string            `json:"algorithm"`
		Set       map[string]string `json:"set"`
		For       jsonDuration      `json:"for"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return err
	}
	*e = Event{At: time.Duration(in.At), Action: in.Action, Target: in.Target, Speed: in.Speed,
		Pause: time.Duration(in.Pause), Share: in.Share, Rate: in.Rate, Algorithm: in.Algorithm,
		Set: in.Set, For: time.Duration(in.For)}
	return nil
}

// jsonDuration is a duration as text ("30s") or as nanoseconds (a number).
type jsonDuration time.Duration

func (d *jsonDuration) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		v, err := parseDuration(s)
		if err != nil {
			return fmt.Errorf("%q is not a duration like 300ms or 30s", s)
		}
		*d = jsonDuration(v)
		return nil
	}
	n, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		return fmt.Errorf("%s is not a duration: give text like \"30s\" or whole nanoseconds", data)
	}
	*d = jsonDuration(n)
	return nil
}
