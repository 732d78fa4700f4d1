package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/logscan"
)

// TestChildScanLog: the child's log is read for the built-in signs and
// the user's patterns, quoting with secrets masked; fencecheck's own
// start line, which quotes the command line, is never a hit.
func TestChildScanLog(t *testing.T) {
	t.Parallel()
	lost, err := logscan.Compile(`write \d+ LOST`)
	require.NoError(t, err)
	cases := []struct {
		name     string
		output   string
		patterns []logscan.Pattern
		summary  string
	}{
		{"clean", `listening\n`, nil, ""},
		{"panic", `listening\npanic: boom s3cret\n`, nil, "1 Go panic (finding), first at line 3: panic: boom " + redact.Mask},
		{"a user pattern", `write 7 LOST\n`, []logscan.Pattern{lost}, `1 line matching "write \\d+ LOST" (finding), first at line 2: write 7 LOST`},
		{"a user pattern not given", `write 7 LOST\n`, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ready := filepath.Join(dir, "ready")
			// The command line holds "panic:" too: it is quoted in
			// fencecheck's start line, which is no hit.
			c := NewChild(fmt.Sprintf("printf '%s'; touch %s; exec sleep 30 # panic: not a hit", tc.output, ready), "",
				func(context.Context) error { _, err := os.Stat(ready); return err })
			c.SetLogDir(dir)
			c.LogPatterns, c.LogSecrets = tc.patterns, []string{"s3cret"}
			require.NoError(t, c.Start(context.Background()))
			require.NoError(t, c.Stop(5*time.Second))
			rep, err := c.ScanLog()
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(dir, LogFile), rep.File)
			assert.Equal(t, tc.summary, rep.Summary())
			for _, ex := range rep.Excerpts {
				for _, l := range ex.Lines {
					assert.NotContains(t, l.Text, "s3cret")
				}
			}
			if tc.name == "panic" {
				assert.Equal(t, "panic: boom "+redact.Mask, rep.Excerpts[0].Lines[2].Text)
			}
		})
	}
}

func TestChildScanLogWithoutLog(t *testing.T) {
	t.Parallel()
	c := NewChild("true", "", alwaysReady)
	_, err := c.ScanLog()
	require.Error(t, err, "no log is not a clean log")

	c.SetLogDir(filepath.Join(t.TempDir(), "gone"))
	_, err = c.ScanLog()
	require.Error(t, err)
	assert.True(t, errors.Is(err, os.ErrNotExist))
}
