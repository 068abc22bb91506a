package archtest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The page's wasm module (cmd/labwasm, make site) links none of the live
// processes' code: what lab watch's own server needs is left out of
// GOOS=js builds (internal/watch/serve.go), and the dashboard's snapshot
// and the processes' answers import none of it (importRules). Each of
// these made the module megabytes bigger (issue 22's 19.8 MB). Nor does it
// link net/http or anything of net (net/url, crypto/tls, mime/multipart
// come with it, a third of a 10.6 MB module): the page's requests reach
// lab watch's routes in memory (watch.Server.Answer), and the API's HTTP
// side (internal/lab/dash/http.go, internal/watch/serve.go) is left out of
// GOOS=js builds.
func TestPageModuleLinksNoProcess(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-deps", "./cmd/labwasm")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/labwasm for js/wasm: %v", err)
	}
	deny := []string{"github.com/valyala/fasthttp", "github.com/prometheus/", "go.uber.org/zap", "github.com/klauspost/compress",
		"github.com/spf13/cobra", "gonum.org/", "github.com/lblab/lblab/internal/shell/wire",
		"github.com/lblab/lblab/internal/shell/lb", "github.com/lblab/lblab/internal/shell/backend",
		"github.com/lblab/lblab/internal/shell/loadgen", "github.com/lblab/lblab/internal/metrics",
		"github.com/lblab/lblab/internal/lab/webui",
		"net", "crypto/tls", "crypto/x509", "mime/multipart"}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("go list named %d packages: %s", len(deps), out)
	}
	for _, d := range deps {
		for _, p := range deny {
			if d == p || strings.HasPrefix(d, p+"/") || strings.HasSuffix(p, "/") && strings.HasPrefix(d, p) {
				t.Errorf("the page's module links %s", d)
			}
		}
	}
}
