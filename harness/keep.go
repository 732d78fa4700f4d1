package harness

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets"
)

// Keep says which runs leave their files in the run store (Config.Store.Keep).
type Keep int

const (
	// KeepAll stores every run: its directory is created when it starts
	// and its history recorded into it as it happens, so that a killed
	// run leaves a checkable history (fencecheck run).
	KeepAll Keep = iota
	// KeepViolations stores only a run that found a violation, or that
	// ended in an error after it recorded something: a sweep of
	// thousands of seeds must not fill the disk with runs that held.
	// Such a run records its history into memory, and a run to be kept
	// writes the same bytes into history.jsonl at its end; the others
	// never touch the disk. A run whose target or token issuer keeps
	// files in the run directory (a receiver process's log, an embedded
	// cluster's data) still gets one when it starts, which is removed
	// when the run is not kept. A process killed mid-run leaves nothing
	// of a run kept in memory.
	KeepViolations
)

// storage is where a run's files go: its directory in the store, made
// when the run starts or, under KeepViolations, only once the run is to
// be kept; and its history, recorded into that directory or into memory.
type storage struct {
	store, name string
	started     time.Time
	dir         string        // "" until made
	memory      *bytes.Buffer // the history, while it is in memory
	pooled      bool
}

// newStorage makes the run's directory now unless the run is kept only
// on a violation and needs no directory while it runs.
func newStorage(cfg *Config, started time.Time) (*storage, error) {
	st := &storage{store: cfg.Store.Dir, name: cfg.runName(), started: started}
	if cfg.Store.Keep == KeepViolations {
		st.memory, st.pooled = historyBuffers.Get().(*bytes.Buffer), true
		st.memory.Reset()
		if !cfg.needsDir() {
			return st, nil
		}
	}
	return st, st.create()
}

// historyBuffers are the in-memory histories of finished runs, reused:
// a default run's history is about 400 kB, and a sweep makes hundreds a
// second.
var historyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// release gives the in-memory history back to the pool; the storage
// must not be used after it.
func (st *storage) release() {
	if st.pooled && st.memory != nil && st.memory.Cap() <= 16<<20 {
		historyBuffers.Put(st.memory)
	}
	st.memory, st.pooled = nil, false
}

// needsDir says whether something of the run keeps files in its
// directory while it runs: the target (a receiver process's log) or the
// token issuer (an embedded cluster's data).
func (c *Config) needsDir() bool {
	_, uses := c.Target.Receiver.(targets.RunDirUser)
	return uses || c.Leases.Issuer != nil
}

func (st *storage) create() error {
	if st.dir != "" {
		return nil
	}
	dir, err := runstore.Create(st.store, st.name, st.started)
	if err != nil {
		return err
	}
	st.dir = dir
	return nil
}

// historyPath is where history.jsonl is, or will be once it is kept.
func (st *storage) historyPath() string {
	if st.dir == "" {
		return runstore.History + " (in memory)"
	}
	return filepath.Join(st.dir, runstore.History)
}

// recorder returns the run's recorder: into history.jsonl, or into
// memory.
func (st *storage) recorder(opts histories.RecorderOptions) (*histories.Recorder, error) {
	if st.memory != nil {
		return histories.NewRecorder(st.memory, opts), nil
	}
	f, err := os.Create(st.historyPath())
	if err != nil {
		return nil, fmt.Errorf("create history %s: %w", st.historyPath(), err)
	}
	return histories.NewRecorder(f, opts), nil
}

// read reads the recorded history back, from its file or from memory:
// the same bytes, read by the same reader as fencecheck check's. A
// history in memory is a sweep's, which runs a run per processor: it is
// read on one goroutine.
func (st *storage) read() (*histories.History, error) {
	src := histories.Source{Path: st.historyPath()}
	if st.memory != nil {
		src.Reader, src.Serial = bytes.NewReader(st.memory.Bytes()), true
	}
	return histories.Read(context.Background(), src)
}

// keep makes the run's directory if it has none yet and writes the
// history recorded in memory into it; the history file is then where
// historyPath says.
func (st *storage) keep() error {
	if err := st.create(); err != nil {
		return err
	}
	if st.memory == nil {
		return nil
	}
	path := filepath.Join(st.dir, runstore.History)
	if err := os.WriteFile(path, st.memory.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write history %s: %w", path, err)
	}
	st.release()
	return nil
}

// discard removes what the run left in the store: a run not kept.
func (st *storage) discard() error {
	st.release()
	if st.dir == "" {
		return nil
	}
	dir := st.dir
	st.dir = ""
	return runstore.Discard(st.store, dir)
}
