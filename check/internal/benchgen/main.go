// Command benchgen writes a generated fenced-register history as a JSON
// Lines file, for measuring `fencecheck check` end to end:
//
//	go run ./check/internal/benchgen -ops 1000000 -clients 50 -unknown 0.1 -invalid -out /tmp/h.jsonl
//
// The history is valid by construction; -invalid plants one stale read,
// which is a violation under both policies.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/histgen"
)

func main() {
	out := flag.String("out", "history.jsonl", "file to write")
	ops := flag.Int("ops", 100000, "operations")
	resources := flag.Int("resources", 1, "resources")
	clients := flag.Int("clients", 5, "concurrent clients")
	unknown := flag.Float64("unknown", 0, "fraction of writes with unknown outcome")
	invalid := flag.Bool("invalid", false, "plant a stale read, a certain violation")
	acceptEqual := flag.Bool("accept-equal", false, "generate for the accept-equal policy instead of strict")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if err := run(*out, *seed, histgen.Bench(*ops, *resources, *clients, *unknown, *acceptEqual), *invalid); err != nil {
		fmt.Fprintf(os.Stderr, "benchgen: %v\n", err)
		os.Exit(1)
	}
}

func run(path string, seed uint64, cfg histgen.Config, invalid bool) error {
	r := rand.New(rand.NewPCG(seed, 0xbe7c4))
	ops := histgen.Generate(r, cfg)
	if invalid && !histgen.BreakStaleRead(ops) {
		return fmt.Errorf("no read to make stale in %d operations", len(ops))
	}
	events := histgen.Events(ops)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := histories.Write(w, events); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}
