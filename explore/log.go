package explore

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fencecheck/fencecheck/runstore"
)

// LogFile is the sweep's log in its directory: one JSON line per seed
// run (Entry), in the order the runs ended.
const LogFile = runstore.SweepLog

// SweepSuffix ends the name of a sweep's folder in the run store:
// <store>/<name>-sweep/<time>/, beside the folder of its stored runs,
// <store>/<name>/<time>/.
const SweepSuffix = "-sweep"

// sweepLog is the sweep's directory and its log, written as runs end.
type sweepLog struct {
	dir  string
	file *os.File
	w    *bufio.Writer
	enc  *json.Encoder
	last time.Time // when the log was last flushed
	err  error
}

// createLog makes the sweep's directory and its log.
func createLog(store, name string, began time.Time) (*sweepLog, error) {
	dir, err := runstore.Create(store, name+SweepSuffix, began)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(dir, LogFile))
	if err != nil {
		return nil, fmt.Errorf("create the sweep's log: %w", err)
	}
	l := &sweepLog{dir: dir, file: f, w: bufio.NewWriterSize(f, 64<<10), last: began}
	l.enc = json.NewEncoder(l.w)
	return l, nil
}

// write appends a seed's line, and flushes once a second, so that a
// killed sweep leaves a log of what it ran until a second before.
func (l *sweepLog) write(e *Entry) {
	if l.err != nil {
		return
	}
	if err := l.enc.Encode(e); err != nil {
		l.err = fmt.Errorf("write the sweep's log: %w", err)
		return
	}
	if now := time.Now(); now.Sub(l.last) >= time.Second {
		l.last = now
		if err := l.w.Flush(); err != nil {
			l.err = fmt.Errorf("write the sweep's log: %w", err)
		}
	}
}

// close ends the log and writes the sweep's result.json and summary.txt.
func (l *sweepLog) close(r *Result) error {
	errs := []error{l.err}
	if err := l.w.Flush(); err != nil && l.err == nil {
		errs = append(errs, fmt.Errorf("write the sweep's log: %w", err))
	}
	if err := l.file.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close the sweep's log: %w", err))
	}
	r.Format = runstore.ResultFormat
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		errs = append(errs, fmt.Errorf("encode the sweep's result: %w", err))
	} else if err := os.WriteFile(filepath.Join(l.dir, runstore.Result), append(data, '\n'), 0o644); err != nil {
		errs = append(errs, fmt.Errorf("write the sweep's result: %w", err))
	}
	if err := os.WriteFile(filepath.Join(l.dir, runstore.Summary), []byte(r.Summary()), 0o644); err != nil {
		errs = append(errs, fmt.Errorf("write the sweep's summary: %w", err))
	}
	return errors.Join(errs...)
}
