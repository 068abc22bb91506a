package wire

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/testbin"
)

type speedBody struct {
	Speed float64           `json:"speed"`
	Set   map[string]string `json:"set"`
	List  []struct {
		A int `json:"a"`
	} `json:"list"`
}

func TestDecodeStrict(t *testing.T) {
	for _, c := range []struct {
		body, err string // err: "" = decodes
	}{
		{`{"speed":0.5}`, ""},
		{"  {\"speed\":0.5}\n\t ", ""},
		{`{"speed":0.5,"set":{"a.b":"1","a.c":"2"},"list":[{"a":1},{"a":2}]}`, ""},
		{`{"speed":0.5}{"speed":7}`, `trailing data after the JSON value at byte 13: "{\"speed\":7}"`},
		{`{"speed":0.5} x`, "trailing data after the JSON value at byte 13"},
		{`{"speed":0.5}]`, "trailing data"},
		{`{"speed":0.5,"speed":7}`, `key "speed" is given twice in one object`},
		{`{"speed":0.5,"Speed":7}`, `key "Speed" is given twice in one object, the first time as "speed"`},
		{`{"set":{"a.b":"1","a.b":"2"}}`, `key "a.b" is given twice`},
		{`{"list":[{"a":1},{"a":2,"a":3}]}`, `key "a" is given twice`},
		{`{"speed":0.5,"nope":1}`, `unknown field "nope"`},
		{`{"speed":`, "unexpected EOF"},
		{``, "the body holds no JSON value"},
		{`{"speed":"fast"}`, "cannot unmarshal string"},
	} {
		var v speedBody
		err := state.DecodeStrict([]byte(c.body), &v)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.body, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want one saying %s", c.body, err, c.err)
		}
		if c.err == "" && v.Speed != 0.5 {
			t.Errorf("%q: speed %v", c.body, v.Speed)
		}
	}
	// Values in different objects may share a key.
	var v speedBody
	if err := state.DecodeStrict([]byte(`{"list":[{"a":1},{"a":2}],"set":{"speed":"x"},"speed":1}`), &v); err != nil || len(v.List) != 2 {
		t.Errorf("same keys in different objects: %v %+v", err, v)
	}
}

// DecodeJSON answers trailing data and a key given twice with 400 and a
// JSON body naming the problem, and the handler does not run.
func TestDecodeJSONRefusesTrailingDataAndDuplicateKeys(t *testing.T) {
	var applied atomic.Int32
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		var b speedBody
		if DecodeJSON(ctx, &b) {
			applied.Add(1)
		}
	}}
	ln := fasthttputil.NewInmemoryListener()
	done := Serve(srv, ln, Limits{}, nil)
	defer func() { srv.Shutdown(); <-done }()
	for body, want := range map[string]string{
		`{"speed":0.5}{"speed":7}`: `"error":"bad JSON body: trailing data after the JSON value at byte 13`,
		`{"speed":0.5,"speed":7}`:  `"error":"bad JSON body: key \"speed\" is given twice in one object`,
	} {
		raw := "POST /admin/slow HTTP/1.1\r\nHost: a\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
		a := testbin.SendRaw(t, ln.Dial, raw)
		if a.Code != 400 || a.ContentType != "application/json" || !strings.Contains(a.Body, want) || !strings.Contains(a.Body, `"code":400`) {
			t.Errorf("%s: %d %s %q, want 400 with %s", body, a.Code, a.ContentType, a.Body, want)
		}
	}
	if n := applied.Load(); n != 0 {
		t.Errorf("%d bodies applied", n)
	}
}
