package admin

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"os/exec"

	"github.com/lblab/lblab/internal/shell/wire"
)

// The admin token of a lab's processes travels in the context: Up, Run
// and Attach put it there, and every admin call made under that context
// (the aggregator's readings, the script, the drills, the event streams)
// presents it, and every process started under it is given it.
type tokenKey struct{}

// WithToken returns ctx carrying token ("" = none).
func WithToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, tokenKey{}, token)
}

func tokenOf(ctx context.Context) string {
	t, _ := ctx.Value(tokenKey{}).(string)
	return t
}

// Authorize makes req present the token of its context.
func Authorize(req *http.Request) {
	if t := tokenOf(req.Context()); t != "" {
		req.Header.Set("Authorization", "Bearer "+t)
	}
}

// PassToken gives a child the token of ctx in its environment (not on its
// command line, where every user of the machine could read it).
func PassToken(ctx context.Context, cmd *exec.Cmd) {
	if t := tokenOf(ctx); t != "" {
		env := cmd.Env
		if env == nil {
			env = os.Environ()
		}
		cmd.Env = append(env, wire.TokenEnv+"="+t)
	}
}

// NewToken is a fresh random token (32 hex digits) for the processes lab
// up and lab run start when the user gives none.
func NewToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// OrNewToken is t, or a fresh token when t is "".
func OrNewToken(t string) string {
	if t == "" {
		return NewToken()
	}
	return t
}
