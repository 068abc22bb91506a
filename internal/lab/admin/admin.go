// Package admin is how lab talks to the admin APIs of its processes: JSON
// calls (Call, a refusal being a StatusError) that present the admin token
// the run carries in its context (WithToken), and the token handed to every
// child started under that context (PassToken).
package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Client talks to the processes' admin APIs (JSON in, JSON out).
var Client = &http.Client{Timeout: 5 * time.Second}

// Call sends method path with body (nil = none) to the admin listener at
// addr and decodes the answer into out (nil = ignore). A non-2xx answer is an
// error carrying the process's JSON reason.
func Call(ctx context.Context, addr, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+addr+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	Authorize(req)
	resp, err := Client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s on %s: %w", method, path, addr, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		msg := resp.Status
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		return &StatusError{Code: resp.StatusCode, Msg: fmt.Sprintf("%s %s on %s: %s", method, path, addr, msg)}
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// StatusError is an admin API's refusal: its HTTP status and reason.
type StatusError struct {
	Code int
	Msg  string
}

func (e *StatusError) Error() string { return e.Msg }
