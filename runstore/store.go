// Package runstore is the layout of the run store, the directory every run
// and battery leaves its files in, so that a person can look at them and
// a killed run's history can still be checked:
//
//	store/<run name>/<UTC timestamp>/history.jsonl, result.json, summary.txt, report.html, …
//	store/latest ──> the run that most recently finished with a result
//
// A run's life in the store has three calls: Create makes its directory
// (the history is recorded into it as it happens, so a killed run leaves
// a checkable one), Publish points latest at it once its result.json is
// written, and Fail says why a run that ends in an error has none. So
// latest never names a run that is still going, was killed, or could not
// start: it always has a result to show.
//
// It knows the names and where they go; what is in the files is the
// business of the stages that write them.
package runstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	Error          = "error.txt"     // why a run ended without a result (Fail)
	SweepLog       = "sweep.jsonl"   // a sweep's log: one line per seed run
	// Latest is the store's link to the run that most recently finished
	// with a result (Publish).
	Latest = "latest"
)

// File is a file a run directory may hold, and how to serve it.
type File struct {
	Name        string
	ContentType string
	Download    bool // offered as a download rather than shown
}

// Files lists the files of a run directory that are meant to be read.
func Files() []File { return slices.Clone(files) }

var files = []File{
	{Report, "text/html; charset=utf-8", false},
	{Timeline, "text/html; charset=utf-8", false},
	{Minimal, "text/html; charset=utf-8", false},
	{Summary, "text/plain; charset=utf-8", false},
	{Result, "application/json", false},
	{Table, "text/plain; charset=utf-8", false},
	{Error, "text/plain; charset=utf-8", false},
	{History, "application/x-ndjson", true},
	{MinimalHistory, "application/x-ndjson", true},
	{SweepLog, "application/x-ndjson", true},
}

// TimestampFormat names run directories: UTC, sortable, with milliseconds
// so that quick successive runs do not collide.
const TimestampFormat = "20060102T150405.000Z"

// Create makes store/<name>/<UTC timestamp>/ for a new run. A run
// records its history straight into it, so a killed run leaves its
// history there; verify writes its results there too. The run is not
// latest yet: Publish makes it so once it has a result, and Fail ends a
// run that has none.
func Create(store, name string, at time.Time) (string, error) {
	if !ValidComponent(name) {
		return "", fmt.Errorf("run name %q: %w", name, ErrBadName)
	}
	stamp := at.UTC().Format(TimestampFormat)
	dir := filepath.Join(store, name, stamp)
	for i := 1; ; i++ {
		err := os.MkdirAll(filepath.Dir(dir), 0o755)
		if err == nil {
			err = os.Mkdir(dir, 0o755)
		}
		if err == nil {
			return dir, nil
		}
		if i > 100 || !os.IsExist(err) && !os.IsNotExist(err) {
			return "", fmt.Errorf("create run directory %s: %w", dir, err)
		}
		// Taken: a run of the same millisecond got there first. Gone: a
		// run that failed removed the empty name folder in between
		// (Fail); MkdirAll makes it again.
		if os.IsExist(err) {
			dir = filepath.Join(store, name, fmt.Sprintf("%s-%d", stamp, i))
		}
	}
}

// Publish points store/latest at the run directory dir (as Create
// returned it) once the run has written its result.json. An interrupted
// run checks what it recorded and writes a result, so it may be
// published; a run without one is refused with ErrNoResult. Concurrent
// runs each publish atomically: latest ends at the one that finished last.
func Publish(store, dir string) error {
	rel, err := filepath.Rel(store, dir)
	if err != nil || !validRel(rel) {
		return fmt.Errorf("publish %s: not a run directory of the store %s", dir, store)
	}
	st, err := os.Lstat(filepath.Join(dir, Result))
	if err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("publish %s: %w", dir, ErrNoResult)
	}
	return pointLatest(store, rel)
}

// ErrNoResult is Publish's error for a run that has not written its
// result.json.
var ErrNoResult = errors.New("runstore: the run has no " + Result + " yet")

// validRel reports whether rel is <name>/<stamp> of valid components.
func validRel(rel string) bool {
	name, stamp, ok := strings.Cut(filepath.ToSlash(rel), "/")
	return ok && ValidComponent(name) && ValidComponent(stamp)
}

// Fail ends the run in dir that could not produce a result (an
// unreachable target, a receiver that would not start, a target that
// failed mid-run) and returns cause, the error its caller reports. A
// directory the run wrote nothing into is removed, and its name folder
// with it when that is empty, so a run that never started leaves nothing
// behind. Otherwise what it wrote stays (the history is checkable, a
// receiver's log says why it did not start) and error.txt holds cause,
// saying why there is no result. Fail never touches latest; if it cannot
// write error.txt, the error it returns says so after cause.
func Fail(store, dir string, cause error) error {
	if rel, err := filepath.Rel(store, dir); err != nil || !validRel(rel) {
		return fmt.Errorf("%w\n(%s is not a run directory of the store %s)", cause, dir, store)
	}
	if os.Remove(dir) == nil { // only an empty directory is removed
		_ = os.Remove(filepath.Dir(dir)) // fails while other runs are in it
		return cause
	}
	if err := os.WriteFile(filepath.Join(dir, Error), []byte(cause.Error()+"\n"), 0o644); err != nil {
		return fmt.Errorf("%w\n(and the run directory could not record it: %v)", cause, err)
	}
	return cause
}

// Discard removes the run directory dir (as Create returned it) with
// everything in it, and its name folder when that is then empty: a run
// whose files its caller chose not to keep (a sweep keeps only the runs
// that found a violation, see harness.KeepViolations). It never touches
// latest, and refuses a directory that is not <name>/<stamp> of store.
func Discard(store, dir string) error {
	if rel, err := filepath.Rel(store, dir); err != nil || !validRel(rel) {
		return fmt.Errorf("discard %s: not a run directory of the store %s", dir, store)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("discard %s: %w", dir, err)
	}
	_ = os.Remove(filepath.Dir(dir)) // fails while other runs are in it
	return nil
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
