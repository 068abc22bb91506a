package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteTime is how long an admin API (a process's, lab's controller's or
// lab watch's) has to write one answer: the admin listeners' write timeout,
// which the dashboard's API extends from the moment its answer is ready.
const WriteTime = 10 * time.Second

// DecodeStrict decodes body, which must hold exactly one JSON value, into
// v. It is the one body decoder of the four admin APIs (backend, lb,
// loadgen and lab's controller). Refused, each with an error saying what
// and where: a syntax error; a field v does not have; a key given twice in
// one object, compared as encoding/json matches keys to fields (without
// regard to case), since encoding/json would silently keep the last; and
// anything but white space after the value ({"speed":0.5}{"speed":7}),
// which encoding/json's Decoder would leave unread.
func DecodeStrict(body []byte, v any) error {
	if err := checkShape(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// frame is one open object or array while checkShape walks the tokens.
type frame struct {
	object  bool
	wantKey bool              // an object's next string is a key
	keys    map[string]string // an object's keys so far, folded to lower case -> as given
}

// checkShape walks body's tokens: one value, no key twice in an object,
// nothing after the value.
func checkShape(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if len(stack) > 0 {
				return io.ErrUnexpectedEOF
			}
			return errors.New("the body holds no JSON value")
		}
		if err != nil {
			return err
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if s, ok := tok.(string); ok && top != nil && top.object && top.wantKey {
			folded := strings.ToLower(s)
			if was, dup := top.keys[folded]; dup {
				if was == s {
					return fmt.Errorf("key %q is given twice in one object (at byte %d)", s, dec.InputOffset())
				}
				return fmt.Errorf("key %q is given twice in one object, the first time as %q (keys match without regard to case; at byte %d)", s, was, dec.InputOffset())
			}
			top.keys[folded] = s
			top.wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, wantKey: true, keys: map[string]string{}})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended (a scalar, or the object or array just closed).
		if len(stack) == 0 {
			off := dec.InputOffset()
			if rest := bytes.TrimLeft(body[off:], " \t\r\n"); len(rest) > 0 {
				return fmt.Errorf("trailing data after the JSON value at byte %d: %.20q (send one value)", off, rest)
			}
			return nil
		}
		if top := stack[len(stack)-1]; top.object {
			top.wantKey = true
		}
	}
}
