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
