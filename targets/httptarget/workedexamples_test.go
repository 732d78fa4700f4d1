package httptarget

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/httptarget/exampleapi"
)

// exampleAdapter loads a worked example's adapter from docs/adapters.
func exampleAdapter(t *testing.T, name string) Adapter {
	t.Helper()
	a, err := LoadAdapter(filepath.Join("..", "..", "docs", "adapters", name+".json"))
	require.NoError(t, err)
	return a
}

// TestWorkedExamplesAreShortAndDocumented: each example adapter has at
// most 30 lines, and docs/http-protocol.md shows it as it is in the file.
func TestWorkedExamplesAreShortAndDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "http-protocol.md"))
	require.NoError(t, err)
	for name := range exampleapi.Handlers() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			file, err := os.ReadFile(filepath.Join("..", "..", "docs", "adapters", name+".json"))
			require.NoError(t, err)
			lines := strings.Count(string(file), "\n")
			assert.LessOrEqual(t, lines, 30, "adapter %s.json", name)
			t.Logf("%s.json: %d lines", name, lines)
			// The block after the link to the file.
			m := regexp.MustCompile(`\(adapters/` + regexp.QuoteMeta(name) + `\.json\)\):\n\n` + "```json\n((?s:.*?))```").FindSubmatch(doc)
			require.NotNil(t, m, "docs/http-protocol.md shows no adapter after a link to adapters/%s.json", name)
			assert.Equal(t, string(file), string(m[1]))
		})
	}
}

// TestWorkedExamplesMapBothWays: through its adapter, each example's
// correct receiver rejects a stale token and its broken one is seen
// accepting it, so the adapter maps rejections and acceptances each as
// what they are.
func TestWorkedExamplesMapBothWays(t *testing.T) {
	t.Parallel()
	for name, handler := range exampleapi.Handlers() {
		for bug, what := range map[exampleapi.Bug]string{exampleapi.Correct: "correct", exampleapi.NoComparison: "no-comparison"} {
			t.Run(name+"/"+what, func(t *testing.T) {
				t.Parallel()
				srv := httptest.NewServer(handler(bug))
				t.Cleanup(srv.Close)
				o := DefaultOptions()
				o.Adapter = exampleAdapter(t, name)
				tgt, err := New(srv.URL, o)
				require.NoError(t, err)
				ctx := context.Background()
				out, err := tgt.Write(ctx, "report", 42, "new-result")
				require.NoError(t, err)
				assert.Equal(t, histories.Accepted, out)
				out, err = tgt.Write(ctx, "report", 41, "old-result")
				require.NoError(t, err)
				r, err := tgt.Read(ctx, "report")
				require.NoError(t, err)
				if bug == exampleapi.Correct {
					assert.Equal(t, histories.Rejected, out)
					assert.Equal(t, targets.Reading{Found: true, Value: "new-result", Token: 42, HasToken: true}, r)
				} else {
					assert.Equal(t, histories.Accepted, out)
					assert.Equal(t, targets.Reading{Found: true, Value: "old-result", Token: 41, HasToken: true}, r)
				}
			})
		}
	}
}

// TestWorkedExampleAnswers: every answer an example's adapter does not
// name is an unknown outcome, never a verdict.
func TestWorkedExampleAnswers(t *testing.T) {
	t.Parallel()
	type reply struct {
		status int
		header string // "Name: value" or ""
		body   string
		want   histories.Outcome // 0: unknown
	}
	cases := map[string][]reply{
		"error-text": {
			{200, "", `{"ok":true}`, histories.Accepted},
			{200, "", `{"ok":false,"error":"stale token 41 (current 42)"}`, histories.Rejected},
			{200, "", `{"ok":false,"error":"stale token 18446744073709551614 (current 18446744073709551615)"}`, histories.Rejected},
			{200, "", `{"ok":false,"error":"bad request: token 0"}`, 0},
			{200, "", `{"ok":"true"}`, 0},
			{200, "", `{"ok":1}`, 0},
			{200, "", `{}`, 0},
			{200, "", `ok`, 0},
			{500, "", `{"ok":true}`, 0},
			{502, "", `{"error":"stale token 1 (current 2)"}`, 0},
		},
		"query-token": {
			{204, "", ``, histories.Accepted},
			{409, "X-Fence-Error: stale", ``, histories.Rejected},
			{409, "X-Fence-Error: locked", ``, 0},
			{409, "", ``, 0},
			{200, "", ``, 0},
			{412, "X-Fence-Error: stale", ``, 0},
			{503, "", `overloaded`, 0},
		},
		"string-version": {
			{200, "", `{"version":"42"}`, histories.Accepted},
			{409, "", `{"error":"version 41 is not newer than 42"}`, histories.Rejected},
			{409, "", `{"error":"version 41 is not newer than 42; retry"}`, 0},
			{409, "", `{"error":"edit conflict"}`, 0},
			{409, "", `version 41 is not newer than 42`, 0},
			{400, "", `{"error":"bad request"}`, 0},
		},
	}
	for name, replies := range cases {
		a := exampleAdapter(t, name)
		for _, rp := range replies {
			t.Run(name+"/"+rp.header+rp.body, func(t *testing.T) {
				t.Parallel()
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					if k, v, ok := strings.Cut(rp.header, ": "); ok {
						w.Header().Set(k, v)
					}
					w.WriteHeader(rp.status)
					_, _ = w.Write([]byte(rp.body))
				}))
				defer srv.Close()
				o := DefaultOptions()
				o.Adapter = a
				tgt, err := New(srv.URL, o)
				require.NoError(t, err)
				out, err := tgt.Write(context.Background(), "report", 41, "v")
				if rp.want == 0 {
					require.Error(t, err)
					assert.Contains(t, err.Error(), "unknown outcome")
					assert.NotErrorIs(t, err, targets.ErrDefinitelyNotApplied)
					return
				}
				require.NoError(t, err)
				assert.Equal(t, rp.want, out)
			})
		}
	}
}
