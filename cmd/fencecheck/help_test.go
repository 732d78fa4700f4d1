package main

import (
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
)

// TestEveryCommandHasItsHelp: every command a user can call explains
// itself at length, every help file is some command's, and none keeps a
// placeholder unfilled.
func TestEveryCommandHasItsHelp(t *testing.T) {
	t.Parallel()
	used := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.Hidden && c.Name() != "help" && c.Name() != "completion" {
			assert.NotEmpty(t, c.Long, "%s has no long help", c.CommandPath())
			assert.NotContains(t, c.Long, "{{", "%s", c.CommandPath())
			used[c.Long] = true
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCommand(io.Discard, io.Discard))
	files, err := fs.Glob(helpFiles, "help/*.txt")
	assert.NoError(t, err)
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "help/"), ".txt")
		text := help(name)
		found := used[text]
		for long := range used {
			found = found || strings.HasPrefix(text, long[:min(len(long), 40)])
		}
		assert.True(t, found, "%s is no command's help", f)
	}
}
