package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fencecheck/fencecheck/runstore"
)

// writeResult writes result.json and summary.txt into the run directory.
func writeResult(dir string, res *Result) error {
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, runstore.Result), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write result %s: %w", dir, err)
	}
	if err := os.WriteFile(filepath.Join(dir, runstore.Summary), []byte(res.Summary()), 0o644); err != nil {
		return fmt.Errorf("write summary %s: %w", dir, err)
	}
	return nil
}

// settle leaves the run directory as the run ended: published as latest
// once result.json is written, and, when the run ends in an error, with
// that error in error.txt or removed if the run wrote nothing into it. A
// run that recorded its history in memory (KeepViolations) and ends in
// an error keeps it, so that fencecheck check can read what it recorded.
// The Result names the directory whenever it is still there.
func settle(st *storage, wrote bool, res Result, err error) (Result, error) {
	defer st.release()
	if wrote {
		if perr := runstore.Publish(st.store, st.dir); perr != nil && err == nil {
			err = perr
		}
	}
	if err == nil {
		return res, nil
	}
	if st.memory != nil && st.memory.Len() > 0 {
		if kerr := st.keep(); kerr != nil {
			err = fmt.Errorf("%w\n(and the history it recorded could not be kept: %v)", err, kerr)
		}
	}
	if st.dir == "" {
		return res, err
	}
	err = runstore.Fail(st.store, st.dir, err)
	if _, serr := os.Stat(st.dir); serr == nil {
		res.Dir = st.dir
	}
	return res, err
}

// keptHistory keeps a history recorded in memory, for a run about to end
// in an error, and says where it is.
func (st *storage) keptHistory() string {
	if err := st.keep(); err != nil {
		return fmt.Sprintf("%s, which could not be written: %v", st.historyPath(), err)
	}
	return st.historyPath()
}
