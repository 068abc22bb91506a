package wire

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Ready is what a process prints on one stdout line, prefixed with
// ReadyPrefix, once it listens: `lab run` reads it to learn the ports.
type Ready struct {
	Name  string `json:"name"`
	Addr  string `json:"addr"`            // data (traffic) listener
	Admin string `json:"admin"`           // admin API listener
	Agent string `json:"agent,omitempty"` // the backend's agent-check listener (backend --agent), if it has one
	PID   int    `json:"pid"`
}

// ReadyPrefix starts the readiness line.
const ReadyPrefix = "LBLAB-READY "

// PrintReady writes the readiness line.
func PrintReady(w io.Writer, r Ready) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s%s\n", ReadyPrefix, data)
	return err
}

// ScanReady reads lines from r until the readiness line and decodes it.
func ScanReady(r io.Reader) (Ready, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, ReadyPrefix); ok {
			var rd Ready
			if err := json.Unmarshal([]byte(rest), &rd); err != nil {
				return Ready{}, fmt.Errorf("bad readiness line %q: %w", line, err)
			}
			return rd, nil
		}
	}
	if err := sc.Err(); err != nil {
		return Ready{}, err
	}
	return Ready{}, fmt.Errorf("process ended before it was ready")
}
