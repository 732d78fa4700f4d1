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
