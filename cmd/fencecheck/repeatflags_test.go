package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/internal/cliflags"
)

// commandFlag is one flag of one command of the CLI.
type commandFlag struct {
	path []string // the command's words after fencecheck: ["run"]
	flag *pflag.Flag
}

// everyFlag lists the flags of every command of a fresh command tree, as
// the commands define them.
func everyFlag() []commandFlag {
	var out []commandFlag
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		c.Flags().VisitAll(func(f *pflag.Flag) { out = append(out, commandFlag{path, f}) })
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(newRootCommand(io.Discard, io.Discard), nil)
	return out
}

// TestRepeatedFlagIsAUsageError gives every single-valued flag of every
// command twice, each time with a value it takes once: the command exits
// 3 and names the flag, and does not run. Given once, the same value
// parses and the command runs. The command's action is replaced by one
// that notes it ran, so that a regression fails here instead of starting
// a receiver.
func TestRepeatedFlagIsAUsageError(t *testing.T) {
	t.Parallel()
	perCommand := make(map[string]int)
	for _, cf := range everyFlag() {
		if cliflags.Repeatable(cf.flag.Value) {
			continue
		}
		cmd := strings.Join(cf.path, " ")
		perCommand[cmd]++
		given := "--" + cf.flag.Name + "=" + cf.flag.DefValue // what it holds by default is a value it takes
		t.Run(cmd+" --"+cf.flag.Name, func(t *testing.T) {
			t.Parallel()
			code, ran, stderr := runParsing(t, append(append([]string(nil), cf.path...), given))
			require.Equal(t, exitHeld, code, "given once, %s %s parses: %s", cmd, given, stderr)
			require.True(t, ran)

			code, ran, stderr = runParsing(t, append(append([]string(nil), cf.path...), given, given))
			assert.Equal(t, exitError, code)
			assert.False(t, ran, "the command ran")
			assert.Contains(t, stderr, "fencecheck: --"+cf.flag.Name+" given twice")
		})
	}
	for _, cmd := range []string{"run", "check", "verify", "replay", "receiver", "serve"} {
		assert.Positive(t, perCommand[cmd], "%s has no single-valued flag to test", cmd)
	}
}

// runParsing is run() with the command's action replaced: it parses the
// flags as fencecheck does and maps the error to the exit code, and
// reports whether the command would have run.
func runParsing(t *testing.T, args []string) (code int, ran bool, stderr string) {
	t.Helper()
	var errb bytes.Buffer
	root := newRootCommand(io.Discard, &errb)
	c, _, err := root.Find(args)
	require.NoError(t, err)
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(*cobra.Command, []string) error { ran = true; return nil }
	root.SetArgs(args)
	return exitCode(root.ExecuteContext(context.Background()), &errb), ran, errb.String()
}

// TestRepeatableFlagsStillRepeat gives every flag meant to repeat twice:
// both values are kept.
func TestRepeatableFlagsStillRepeat(t *testing.T) {
	t.Parallel()
	var seen []string
	for _, cf := range everyFlag() {
		if !cliflags.Repeatable(cf.flag.Value) {
			continue
		}
		cmd := strings.Join(cf.path, " ")
		seen = append(seen, cmd+" --"+cf.flag.Name)
		t.Run(cmd+" --"+cf.flag.Name, func(t *testing.T) {
			t.Parallel()
			fs := pflag.NewFlagSet(cmd, pflag.ContinueOnError)
			fs.AddFlag(cf.flag)
			require.NoError(t, fs.Parse([]string{"--" + cf.flag.Name + "=a", "--" + cf.flag.Name + "=b"}))
			assert.Equal(t, []string{"a", "b"}, cf.flag.Value.(pflag.SliceValue).GetSlice())
		})
	}
	for _, want := range []string{"run --sql-setup", "run --sql-teardown", "run --require", "verify --require"} {
		assert.Contains(t, seen, want)
	}
}

// TestRefuseRepeatsKeepsTheHelp checks that the guard changes no
// command's help: the flags' usage lines are those of the flags as the
// commands registered them.
func TestRefuseRepeatsKeepsTheHelp(t *testing.T) {
	t.Parallel()
	root := newRootCommand(io.Discard, io.Discard)
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		guarded := c.Flags().FlagUsages()
		registered := pflag.NewFlagSet(c.Name(), pflag.ContinueOnError)
		c.Flags().VisitAll(func(f *pflag.Flag) {
			plain := *f
			if v, registered, ok := cliflags.Unguarded(f.Value); ok {
				plain.Value, plain.DefValue = v, registered
			}
			registered.AddFlag(&plain)
		})
		assert.Equal(t, registered.FlagUsages(), guarded, "fencecheck %s --help", c.Name())
	}
}

// TestRepeatedFlagExitsThree runs the binary as a user would, with the
// issue's case, and a repeated target spec whose password must not be
// echoed.
func TestRepeatedFlagExitsThree(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--target", "sqlite:///tmp/never-opened.db", "--sql-write", "UPDATE t SET v = :value", "--sql-read", "SELECT v FROM t", "--sql-read", "SELECT v FROM u"},
			"--sql-read given twice"},
		{[]string{"verify", "--target", "mysql://root:s3cretpw@127.0.0.1:1/test", "--target", "memory://fenced"}, "--target given twice"},
		{[]string{"check", "x.jsonl", "--policy", "strict", "--policy=accept-equal"}, "--policy given twice"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args[:1], " ")+" "+tc.want, func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, schema.TempDir(t), tc.args...)
			assert.Equal(t, 3, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stderr, tc.want)
			assert.NotContains(t, r.stdout+r.stderr, "s3cretpw")
		})
	}
}
