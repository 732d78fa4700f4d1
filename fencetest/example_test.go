package fencetest_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/fencecheck/fencecheck/fencetest"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// exampleT stands in for the *testing.T a test would pass, which an
// example has none of: it keeps whether the run failed the test.
type exampleT struct {
	name   string
	failed bool
}

func (*exampleT) Helper()                          {}
func (t *exampleT) Name() string                   { return t.name }
func (*exampleT) Logf(string, ...any)              {}
func (t *exampleT) Errorf(string, ...any)          { t.failed = true }
func (t *exampleT) Fatalf(format string, a ...any) { t.failed = true; fmt.Printf(format+"\n", a...) }
func (*exampleT) Context() context.Context         { return context.Background() }
func (t *exampleT) result(verdict judge.Verdict) string {
	if t.failed {
		return fmt.Sprintf("%s: the test fails", verdict)
	}
	return fmt.Sprintf("%s: the test passes", verdict)
}

// A test of a targets.Target: Config is harness.DefaultConfig named after
// the test; here it runs in the deterministic simulation. In a test, t is
// the test's *testing.T.
func ExampleRun() {
	store, err := os.MkdirTemp("", "fencetest-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(store)

	for _, receiver := range []string{"fenced", "check-then-set"} {
		t := &exampleT{name: "TestReceiverRejectsStaleTokens"}
		tgt, err := memory.Open(receiver)
		if err != nil {
			fmt.Println(err)
			return
		}
		cfg := fencetest.Config(t, tgt)
		cfg.Runtime.Deterministic, cfg.Store.Dir = true, store
		res := fencetest.Run(t, cfg)
		fmt.Println(receiver, t.result(res.Verdict))
	}
	// Output:
	// fenced held: the test passes
	// check-then-set violated: the test fails
}

// A test of an http.Handler in the process: the reference receiver, in
// the protocol it speaks, the default. In a test, with t the test's
// *testing.T, Options.Synctest runs it on a synctest bubble's virtual
// clock; an example has no *testing.T, so this one runs on the real
// clock, for two seconds.
func ExampleHandler() {
	store, err := os.MkdirTemp("", "fencetest-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(store)

	h, err := receiver.NewHandler(receiver.NewMemory(), receiver.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	t := &exampleT{name: "TestHandlerRejectsStaleTokens"}
	o := fencetest.DefaultOptions()
	o.Config = func(c *harness.Config) { c.Store.Dir, c.Workload.Duration = store, 2*time.Second }
	res := fencetest.Handler(t, h, o)
	fmt.Println(t.result(res.Verdict))
	// Output:
	// held: the test passes
}
