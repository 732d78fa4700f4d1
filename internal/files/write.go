// Package files holds the one way fencecheck writes a whole file: create
// it, let a writer fill it, close it, and say which file and which step
// failed, without losing the close error that reports a full disk. The
// report, the replay, the run store's browser and the CLI write with it.
package files

import (
	"errors"
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

// WriteAtomically replaces the file at path with what fill writes: it is
// written beside it and renamed over it, so that a reader never sees half
// of it.
func WriteAtomically(path, what string, fill func(io.Writer) error) error {
	tmp := path + ".tmp"
	if err := Write(tmp, what, fill); err != nil {
		return errors.Join(err, removeIfThere(tmp))
	}
	if err := os.Rename(tmp, path); err != nil {
		return errors.Join(fmt.Errorf("rename %s to %s: %w", tmp, path, err), os.Remove(tmp))
	}
	return nil
}

// removeIfThere removes path, if it exists.
func removeIfThere(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
