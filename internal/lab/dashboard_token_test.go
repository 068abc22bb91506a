//go:build linux

package lab

import (
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lblab/lblab/internal/shell/wire"
)

// The dashboard of a controller that requires a token, in a browser: the
// page opened once with ?token= keeps working on its cookie (the snapshot
// stream, a drill from the inspector); a backend killed from outside shows
// its red EXITED badge.
func TestDashboardWithTokenInBrowser(t *testing.T) {
	b := newBrowser(t)
	const token = "browser-test-token-0123456789"
	addr := startUp(t, smallLab(t, "p2c", 3600), func(o *UpOptions) {
		o.Token, o.Access = token, wire.Access{Token: token}
	})
	b.do(t, 15*time.Second, chromedp.Navigate("http://"+addr+"/"))
	b.wait(t, 5*time.Second, `document.body.textContent.includes('needs its token')`)
	b.do(t, 15*time.Second, chromedp.Navigate("http://"+addr+"/?token="+token))
	b.wait(t, 10*time.Second, `location.search === '' && document.querySelectorAll('#diagram .server').length === 3`)
	b.do(t, 5*time.Second, click(`#diagram .server[data-name="s2"]`), click(`#inspector button[data-action="kill"]`))
	b.wait(t, 5*time.Second, `!!document.querySelector('#diagram .server[data-name="s2"] .badge.down')`)
	b.do(t, 5*time.Second, click(`#inspector .close`))

	pid := childPID("backend", "s3")
	if pid == 0 {
		t.Fatal("no backend s3 process")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	b.wait(t, 10*time.Second, `!!document.querySelector('#diagram .server[data-name="s3"] .badge.exited')`)
	b.wait(t, 5*time.Second, `[...document.querySelectorAll('#log li')].some(li => li.textContent.includes('backend s3 exited unexpectedly'))`)
	b.screenshot(t, "dashboard-exited")
	if errs := b.jsErrors(); len(errs) > 0 {
		t.Errorf("JavaScript errors in the dashboard:\n%v", errs)
	}
}
