package browse

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// chromium finds a Chromium or Chrome binary, or returns "".
func chromium() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// realStore records real runs, as fencecheck run does: a broken receiver
// and a correct one.
func realStore(t *testing.T) string {
	t.Helper()
	dir := schema.TempDir(t)
	for _, name := range []string{"fenced", "unfenced"} {
		tgt, err := memory.Open(name)
		require.NoError(t, err)
		faults, err := nemesis.Parse("pause,delay")
		require.NoError(t, err)
		cfg := harness.DefaultConfig()
		cfg.Target.Receiver, cfg.Target.Name, cfg.Nemesis.Faults, cfg.Gates.MinStale = tgt, "memory://"+name, faults, 0
		cfg.Runtime.Seed, cfg.Runtime.Deterministic, cfg.Store.Dir = 3, true, dir
		_, err = harness.Run(context.Background(), cfg)
		require.NoError(t, err)
	}
	return dir
}

// browser starts headless Chromium with the flags that work in CI and
// collects what the pages write to the console.
type browser struct {
	ctx     context.Context
	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

func newBrowser(t *testing.T, exe string) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(schema.TempDir(t)), chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	b := &browser{ctx: ctx}
	messages := chromedp.Console(ctx) // starts the browser and subscribes
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.console = append(b.console, m)
			b.mu.Unlock()
		}
	}()
	return b
}

// errors returns the console errors and exceptions so far.
func (b *browser) errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, m := range b.console {
		if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
			out = append(out, m.String())
		}
	}
	return out
}

func (b *browser) open(t *testing.T, url string) {
	t.Helper()
	require.NoError(t, chromedp.Do(b.ctx, chromedp.Navigate(url)), url)
}

func (b *browser) number(t *testing.T, js string) int {
	t.Helper()
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](js))
	require.NoError(t, err, js)
	return n
}

// screenshot saves the page (or only what the window shows, for pages
// too wide to capture whole) in dir, and in $FENCECHECK_SCREENSHOTS if set.
func (b *browser) screenshot(t *testing.T, dir, name string, full bool) {
	t.Helper()
	shot := chromedp.CaptureScreenshot()
	if full {
		shot = chromedp.FullScreenshot(100)
	}
	png, err := chromedp.Run(b.ctx, shot)
	require.NoError(t, err)
	for _, d := range []string{dir, os.Getenv("FENCECHECK_SCREENSHOTS")} {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		require.NoError(t, os.WriteFile(p, png, 0o644))
		t.Logf("screenshot %s", p)
	}
}

// TestInARealBrowser opens fencecheck serve's pages in headless Chromium:
// the runs table, a report with its plots, and porcupine's timeline.
func TestInARealBrowser(t *testing.T) {
	exe := chromium()
	if exe == "" {
		t.Skip("no Chromium found (install Debian's chromium package, or set CHROMIUM=/path/to/chrome): skipping the browser test")
	}
	srv, err := New(realStore(t))
	require.NoError(t, err)
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	b := newBrowser(t, exe)
	shots := schema.TempDir(t)

	b.open(t, ts.URL+"/")
	assert.Equal(t, 2, b.number(t, `document.querySelectorAll("#runs tbody tr").length`), "one row per run")
	assert.Equal(t, 1, b.number(t, `document.querySelectorAll("#runs .pill.violated").length`))
	assert.Equal(t, 1, b.number(t, `document.querySelectorAll("#runs .pill.held").length`))
	b.screenshot(t, shots, "runs.png", true)

	b.open(t, ts.URL+"/latest/") // the unfenced run, the newer one
	assert.Equal(t, 1, b.number(t, `document.querySelectorAll(".verdict.violated").length`))
	assert.Equal(t, 2, b.number(t, `[...document.querySelectorAll("svg.plot")].filter(s => s.getBoundingClientRect().width > 300 && s.querySelectorAll("path").length > 50).length`),
		"both plots render with their data")
	assert.Positive(t, b.number(t, `document.querySelectorAll("table.story tr.violating").length`), "the minimal counterexample's culprit is marked")
	b.screenshot(t, shots, "report.png", true)

	b.open(t, strings.TrimSuffix(ts.URL+mustLocation(t, ts.URL+"/latest/"), "report.html")+"timeline.html")
	assert.Positive(t, b.number(t, `document.querySelectorAll("#canvas svg rect.history-rect").length`), "porcupine drew the operations")
	assert.Positive(t, b.number(t, `document.querySelectorAll("#canvas svg rect.client-annotation-rect").length`), "and the lease, nemesis and violation annotations")
	b.screenshot(t, shots, "timeline.png", false)

	time.Sleep(200 * time.Millisecond) // let late console messages arrive
	assert.Empty(t, b.errors(), "no console errors")
}

// mustLocation returns where url redirects to.
func mustLocation(t *testing.T, url string) string {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(url)
	require.NoError(t, err)
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	require.NotEmpty(t, loc, resp.Status)
	return loc
}
