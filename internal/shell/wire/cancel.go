package wire

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"
)

// PostCancel sends a hedge loser's cancellation ({"id":N,"attempt":"hedge"})
// to the admin API behind hc (a balancer's or a backend's POST /admin/cancel)
// and returns how many queued attempts it removed.
func PostCancel(hc *fasthttp.HostClient, body []byte, timeout time.Duration) (int, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.SetRequestURI("http://" + hc.Addr + "/admin/cancel")
	req.Header.SetContentType("application/json")
	req.SetBody(body)
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
