package browse

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// errNotRegular is the error of a name that is not a regular file: a
// directory, a symbolic link, a FIFO or a device. Opening a FIFO for
// reading would wait for a writer, forever, and a device may be endless;
// a run writes only regular files.
var errNotRegular = errors.New("browse: not a regular file")

// regular returns the file information of name, a path in the store, if
// it is a regular file; a symbolic link is not followed.
func (s *Server) regular(name string) (fs.FileInfo, error) {
	st, err := s.root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", name, errNotRegular)
	}
	return st, nil
}

// open opens name, a path in the store, for reading if it is a regular
// file. It looks before it opens, and opens without blocking (O_NONBLOCK:
// a FIFO put in the file's place in between opens at once rather than
// waiting for a writer) and checks that what it opened is what it saw.
func (s *Server) open(name string) (*os.File, fs.FileInfo, error) {
	seen, err := s.regular(name)
	if err != nil {
		return nil, nil, err
	}
	f, err := s.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && (!st.Mode().IsRegular() || !os.SameFile(seen, st)) {
		err = fmt.Errorf("%s: %w", name, errNotRegular)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// readFile reads a small regular file of the store, at most limit bytes.
func (s *Server) readFile(name string, limit int64) ([]byte, error) {
	f, _, err := s.open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errors.New("browse: file too large")
	}
	return data, nil
}
