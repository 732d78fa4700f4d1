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
// that error in error.txt or removed if the run wrote nothing into it.
// The Result names the directory whenever it is still there.
func settle(store, dir string, wrote bool, res Result, err error) (Result, error) {
	if wrote {
		if perr := runstore.Publish(store, dir); perr != nil && err == nil {
			err = perr
		}
	}
	if err == nil {
		return res, nil
	}
	err = runstore.Fail(store, dir, err)
	if _, serr := os.Stat(dir); serr == nil {
		res.Dir = dir
	}
	return res, err
}
