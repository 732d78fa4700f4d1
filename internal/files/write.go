// Package files holds the one way fencecheck writes a whole file: create
// it, let a writer fill it, close it, and say which file and which step
// failed, without losing the close error that reports a full disk. The
// report, the replay, the run store's browser and the CLI write with it.
package files

import (
	"fmt"
	"io"
	"os"
)

// Write creates (or truncates) the file at path and calls fill with it.
// what names the file for people ("history", "junit report").
func Write(path, what string, fill func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s %s: %w", what, path, err)
	}
	if err := fill(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s %s: %w", what, path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s %s: %w", what, path, err)
	}
	return nil
}
