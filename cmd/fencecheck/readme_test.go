package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// updateREADME makes TestREADMEOutput rewrite README.md's output blocks
// from what the built binary prints, instead of comparing them:
//
//	go test ./cmd/fencecheck -run '^TestREADMEOutput$' -update
var updateREADME = flag.Bool("update", false, "TestREADMEOutput: rewrite README.md's output blocks from what the built binary prints")

// readmePath is the README, from this package's directory.
var readmePath = filepath.Join("..", "..", "README.md")

// outputMarker marks a README block as the output of a command, with the
// exit code it must end with. The fenced block right after it starts
// with "$ COMMAND" and holds what the command printed, stdout and stderr
// as a terminal shows them:
//
//	<!-- output: fencecheck run --target memory://check-then-set --seed 7 (exit 1) -->
var outputMarker = regexp.MustCompile(`^<!-- output: (fencecheck(?: [^ ]+)*) \(exit ([0-3])\) -->$`)

// readmeNormalizers replace, in both the README's block and the command's
// output, what legitimately differs from one run of the same command to
// the next, and nothing else; a change in any other character fails the
// test. Each names what it stands for.
var readmeNormalizers = []struct {
	re   *regexp.Regexp
	with string
}{
	// A run directory is named after the UTC time the run started
	// (runstore): store/<run name>/20261206T222117.465Z.
	{regexp.MustCompile(`\b\d{8}T\d{6}\.\d{3}Z\b`), "<run time>"},
	// The checker's own wall time, at the end of the checker line.
	{regexp.MustCompile(`(?m)^(checker +.*, )` + goDuration + `$`), "${1}<elapsed>"},
	// The shrinker's wall time, at the end of the minimal
	// counterexample's heading.
	{regexp.MustCompile(`(?m)^(minimal counterexample: .*, \d+ checks?, )` + goDuration + `\)$`), "${1}<elapsed>)"},
	// An audit's wall time: the time it spent, on the budget line, and
	// each step's, in the step table's time column (whose width follows
	// the longest, so the blanks around it go too).
	{regexp.MustCompile(`(?m)^(budget +.*, )` + goDuration + ` spent$`), "${1}<elapsed> spent"},
	{regexp.MustCompile(`(?m)^([1-9] [a-z' -]+?  +(?:held|violated|inconclusive|info|not tested)) +` + goDuration + ` +`), "${1} <elapsed> "},
	{regexp.MustCompile(`(?m)^(step +result +time) +what$`), "${1} what"},
	// Which racer of a planted race writes last, and so which value the
	// read finds, is up to the scheduler (verify's race scenarios): the
	// row fails whichever lower token won, and says which. The round it
	// failed in stays: the race window is held open until every racer
	// has checked, so a broken receiver fails the first round.
	{regexp.MustCompile(`then read "racer-\d+"@\d+ \(FAIL\)`), `then read "racer-<n>"@<n> (FAIL)`},
	// Trailing blanks, which a Markdown editor may strip on save.
	{regexp.MustCompile(`(?m)[ \t]+$`), ""},
}

// goDuration matches a time.Duration as its String method prints it.
const goDuration = `(?:[0-9.]+h)?(?:[0-9.]+m)?[0-9.]+(?:ns|µs|us|ms|s)`

func normalizeReadmeOutput(s string) string {
	for _, n := range readmeNormalizers {
		s = n.re.ReplaceAllString(s, n.with)
	}
	return s
}

// readmeBlock is one marked output block of the README: lines[start:end]
// are its content, between the fences.
type readmeBlock struct {
	command    string
	code       int
	marker     int // the marker's line
	start, end int
}

// readmeBlocks finds the README's marked output blocks, and fails the
// test on a marker without a block after it and on a block that shows a
// fencecheck command ("$ fencecheck …") without a marker, which nothing
// would keep true.
func readmeBlocks(t *testing.T, lines []string) []readmeBlock {
	t.Helper()
	var blocks []readmeBlock
	for i := 0; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "<!-- output") {
			m := outputMarker.FindStringSubmatch(lines[i])
			require.NotNil(t, m, "README.md:%d: a marker reads <!-- output: fencecheck ARGS… (exit N) -->", i+1)
			require.True(t, i+1 < len(lines) && lines[i+1] == "```", "README.md:%d: the marker is not followed by a ``` block", i+1)
			end := i + 2
			for end < len(lines) && lines[end] != "```" {
				end++
			}
			require.Less(t, end, len(lines), "README.md:%d: the block never closes", i+2)
			code, _ := strconv.Atoi(m[2])
			blocks = append(blocks, readmeBlock{command: m[1], code: code, marker: i, start: i + 2, end: end})
			i = end
			continue
		}
		if strings.HasPrefix(lines[i], "```") {
			end := i + 1
			for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
				if strings.HasPrefix(lines[end], "$ fencecheck") {
					assert.Fail(t, "unmarked output", "README.md:%d shows a fencecheck command's output with no <!-- output: … --> marker before its block, so no test keeps it true", end+1)
				}
				end++
			}
			i = end
		}
	}
	return blocks
}

// TestREADMEOutput: every output block of README.md is what the built
// binary prints for its command, so the front page cannot go stale: the
// block is run with the real binary in a fresh directory and compared,
// after readmeNormalizers, line for line, and so is its exit code. With
// -update it rewrites the blocks that differ instead (docs/testing.md).
// The commands must be deterministic (memory:// targets with a --seed):
// the same seed gives the same history, byte for byte.
func TestREADMEOutput(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(readmePath)
	require.NoError(t, err)
	lines := strings.Split(string(raw), "\n")
	blocks := readmeBlocks(t, lines)
	require.NotEmpty(t, blocks, "README.md has no <!-- output: … --> block; its example would be unchecked")
	changed := false
	// From the last block up, so that rewriting one does not move the
	// lines of those still to come.
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		want := strings.Join(lines[b.start:b.end], "\n")
		got, code := runReadmeCommand(t, b.command)
		if *updateREADME {
			if normalizeReadmeOutput(got) != normalizeReadmeOutput(want) || code != b.code {
				lines[b.marker] = "<!-- output: " + b.command + " (exit " + strconv.Itoa(code) + ") -->"
				lines = append(lines[:b.start], append(strings.Split(got, "\n"), lines[b.end:]...)...)
				changed = true
				t.Logf("README.md:%d: rewrote the output of %s", b.marker+1, b.command)
			}
			continue
		}
		assert.Equal(t, b.code, code, "README.md:%d: %s exits %d, the marker says %d", b.marker+1, b.command, code, b.code)
		if w, g := normalizeReadmeOutput(want), normalizeReadmeOutput(got); w != g {
			t.Errorf("README.md:%d: the block differs from what %s prints (- README, + the command, both normalized):\n%s"+
				"if the change is intended, rewrite the block with\n\tgo test ./cmd/fencecheck -run '^TestREADMEOutput$' -update",
				b.marker+1, b.command, lineDiff(w, g, b.start+1))
		}
	}
	if changed {
		require.NoError(t, os.WriteFile(readmePath, []byte(strings.Join(lines, "\n")), 0o644))
	}
}

// runReadmeCommand runs a README command with the built binary in a
// fresh directory, as a user in a new checkout would, and returns the
// block it makes ("$ COMMAND", then stdout and stderr as a terminal
// interleaves them) and its exit code.
func runReadmeCommand(t *testing.T, command string) (string, int) {
	t.Helper()
	args := strings.Fields(command)[1:]
	cmd := exec.Command(fencecheckBinary, args...)
	cmd.Dir = schema.TempDir(t)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err, command)
	}
	return "$ " + command + "\n" + strings.TrimRight(out.String(), "\n"), code
}

// lineDiff shows where two texts differ, as one hunk: the lines between
// the lines they share at the start and at the end, "-" for want's and
// "+" for got's. first is the line number of want's first line, so that
// the hunk names the README's line.
func lineDiff(want, got string, first int) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	pre := 0
	for pre < len(w) && pre < len(g) && w[pre] == g[pre] {
		pre++
	}
	suf := 0
	for suf < len(w)-pre && suf < len(g)-pre && w[len(w)-1-suf] == g[len(g)-1-suf] {
		suf++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "@@ README.md:%d @@\n", first+pre)
	for _, l := range w[pre : len(w)-suf] {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range g[pre : len(g)-suf] {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}
