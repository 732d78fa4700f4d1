// Package runstore is the layout of the run store, the directory every run
// and battery leaves its files in, so that a person can look at them and
// a killed run's history can still be checked:
//
//	store/<run name>/<UTC timestamp>/history.jsonl, result.json, summary.txt, report.html, …
//	store/latest ──> the newest run directory
//
// It knows the names and where they go; what is in the files is the
// business of the stages that write them.
package runstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// The files of a run directory.
const (
	History        = "history.jsonl" // the events, recorded as they happen
	Result         = "result.json"   // the verdict, counts, coverage, configuration
	Summary        = "summary.txt"   // the verdict for people
	Report         = "report.html"   // the report
	Timeline       = "timeline.html" // porcupine's visualization, bounded
	Minimal        = "minimal.html"  // the minimal counterexample's visualization
	MinimalHistory = "minimal.jsonl" // the minimal counterexample, a history of its own
	Table          = "table.txt"     // a verify battery's table
	// Latest is the store's link to its newest run directory.
	Latest = "latest"
)

// File is a file a run directory may hold, and how to serve it.
type File struct {
	Name        string
	ContentType string
	Download    bool // offered as a download rather than shown
}

// Files lists the files of a run directory that are meant to be read.
var Files = []File{
	{Report, "text/html; charset=utf-8", false},
	{Timeline, "text/html; charset=utf-8", false},
	{Minimal, "text/html; charset=utf-8", false},
	{Summary, "text/plain; charset=utf-8", false},
	{Result, "application/json", false},
	{Table, "text/plain; charset=utf-8", false},
	{History, "application/x-ndjson", true},
	{MinimalHistory, "application/x-ndjson", true},
}

// TimestampFormat names run directories: UTC, sortable, with milliseconds
// so that quick successive runs do not collide.
const TimestampFormat = "20060102T150405.000Z"

// Create makes store/<name>/<UTC timestamp>/ and points store/latest at
// it. A run records its history straight into it, so a killed run leaves
// its history there; verify writes its results there too.
func Create(store, name string, at time.Time) (string, error) {
	if !ValidComponent(name) {
		return "", fmt.Errorf("run name %q: %w", name, ErrBadName)
	}
	stamp := at.UTC().Format(TimestampFormat)
	rel := filepath.Join(name, stamp)
	dir := filepath.Join(store, rel)
	for i := 1; ; i++ {
		err := os.MkdirAll(filepath.Dir(dir), 0o755)
		if err == nil {
			err = os.Mkdir(dir, 0o755)
		}
		if err == nil {
			break
		}
		if !os.IsExist(err) || i > 100 {
			return "", fmt.Errorf("create run directory %s: %w", dir, err)
		}
		rel = filepath.Join(name, fmt.Sprintf("%s-%d", stamp, i))
		dir = filepath.Join(store, rel)
	}
	if err := pointLatest(store, rel); err != nil {
		return "", err
	}
	return dir, nil
}

// ErrBadName is the error of a run name that is not a single plain path
// component: a separator, a leading dot (so "." and ".."), or "latest"
// would put the run outside its folder or inside another run's.
var ErrBadName = errors.New("not a run name: use letters, digits, '.', '_' and '-', not starting with '.', '_' or '-', and not \"latest\"")

// tmpSeq makes the temporary link names of this process unique.
var tmpSeq atomic.Uint64

// pointLatest replaces store/latest atomically: a new link is renamed over
// the old one. Each call makes its own temporary link (process id and a
// counter in its name), so that concurrent runs sharing a store, in one
// process or several, never remove or rename each other's.
func pointLatest(store, rel string) error {
	link := filepath.Join(store, Latest)
	tmp := fmt.Sprintf("%s.tmp-%d-%d", link, os.Getpid(), tmpSeq.Add(1))
	if err := os.Symlink(rel, tmp); err != nil {
		return fmt.Errorf("link %s: %w", link, err)
	}
	if err := os.Rename(tmp, link); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("link %s: %w", link, err)
	}
	return nil
}

// Name derives a run's folder name from a target spec:
// "memory://check-then-set" → "memory-check-then-set". The result is
// always a valid run name ("run" when nothing of the spec is left).
func Name(target string) string {
	var b strings.Builder
	dash := false
	for _, r := range target {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_'
		if ok {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.TrimLeft(strings.TrimRight(b.String(), "-."), "._-")
	if len(name) > maxName {
		name = strings.TrimRight(name[:maxName], "-.")
	}
	if !ValidComponent(name) {
		return "run"
	}
	return name
}

// maxName is the longest derived run name; ValidComponent allows 201.
const maxName = 200
