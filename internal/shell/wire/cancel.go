package wire

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/core/server"
)

// CancelWait bounds one cancellation's exchange with an admin API.
const CancelWait = time.Second

// CancelRequest is the body of POST /admin/cancel, on a backend or a
// balancer: the X-Lab-Request number of the request whose queued attempts
// to cancel, optionally the X-Lab-Attempt kind they must have, and the
// attempt's X-Lab-Try number (its hop draws are the attempt's own).
type CancelRequest struct {
	ID      *uint64 `json:"id"`
	Attempt *string `json:"attempt,omitempty"`
	Try     int     `json:"try,omitempty"`
}

// NewCancel is the cancellation of request id's attempt number try, of kind k.
func NewCancel(id uint64, try int, k server.Kind) CancelRequest {
	a := k.String()
	return CancelRequest{ID: &id, Attempt: &a, Try: try}
}

// DecodeCancel reads and checks a POST /admin/cancel body; on bad input it
// answers 400 naming the field and returns false.
func DecodeCancel(ctx *fasthttp.RequestCtx) (CancelRequest, bool) {
	var req CancelRequest
	if !DecodeJSON(ctx, &req) {
		return req, false
	}
	if req.ID == nil {
		BadRequest(ctx, "id: required, the X-Lab-Request number of the request to cancel")
		return req, false
	}
	if a := req.Attempt; a != nil && ParseKind([]byte(*a)).String() != *a { // ParseKind says first for anything unknown
		BadRequest(ctx, "attempt: must be first, retry, hedge or probe; got %q", *a)
		return req, false
	}
	if req.Try < 0 || req.Try > 15 {
		BadRequest(ctx, "try: must be an attempt number in 1..15 (or left out); got %d", req.Try)
		return req, false
	}
	return req, true
}

// Kind is the attempt kind the request is restricted to; only is false when
// it names none (every queued attempt of the request goes).
func (r CancelRequest) Kind() (k server.Kind, only bool) {
	if r.Attempt == nil {
		return server.First, false
	}
	return ParseKind([]byte(*r.Attempt)), true
}

// Marshal is the request as a JSON body.
func (r CancelRequest) Marshal() []byte {
	b, _ := json.Marshal(r) // a pointer to a number and one to a string: cannot fail
	return b
}

// PostCancel sends a hedge loser's cancellation ({"id":N,"attempt":"hedge"})
// to the admin API behind hc (a balancer's or a backend's POST /admin/cancel)
// and returns how many queued attempts it removed.
func PostCancel(hc *fasthttp.HostClient, body []byte, timeout time.Duration, token string) (int, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.SetRequestURI("http://" + hc.Addr + "/admin/cancel")
	req.Header.SetContentType("application/json")
	req.SetBody(body)
	Authorize(&req.Header, token)
	if err := hc.DoTimeout(req, resp, timeout); err != nil {
		return 0, err
	}
	if c := resp.StatusCode(); c != fasthttp.StatusOK {
		return 0, fmt.Errorf("POST /admin/cancel: status %d: %s", c, resp.Body())
	}
	var rep struct {
		Cancelled *int `json:"cancelled"`
	}
	if err := json.Unmarshal(resp.Body(), &rep); err != nil || rep.Cancelled == nil {
		return 0, fmt.Errorf("POST /admin/cancel: no count in %q", resp.Body())
	}
	return *rep.Cancelled, nil
}
