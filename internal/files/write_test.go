package files

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	require.NoError(t, Write(path, "report", func(w io.Writer) error {
		_, err := io.WriteString(w, "hello")
		return err
	}))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(got))

	err = Write(path, "report", func(io.Writer) error { return errors.New("disk on fire") })
	assert.EqualError(t, err, "write report "+path+": disk on fire")

	err = Write(filepath.Join(dir, "missing", "x"), "history", func(io.Writer) error { return nil })
	assert.ErrorContains(t, err, "create history "+filepath.Join(dir, "missing", "x"))
}

// TestWriteAtomically: the file is replaced whole; a failed write leaves
// the old one and no temporary file.
func TestWriteAtomically(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "info")
	fill := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	require.NoError(t, WriteAtomically(path, "listen info", fill("one\n")))
	require.NoError(t, WriteAtomically(path, "listen info", fill("two\n")))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "two\n", string(got))
	err = WriteAtomically(path, "listen info", func(io.Writer) error { return errors.New("disk on fire") })
	assert.ErrorContains(t, err, "disk on fire")
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "two\n", string(got), "the old file stands")
	assert.NoFileExists(t, path+".tmp")
}
