package histories

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxLineBytes bounds one history line, its newline not counted. Real
// lines are a few hundred bytes; the bound keeps a corrupt file without
// newlines from exhausting memory.
const maxLineBytes = 16 << 20

// lineError locates a problem in a history file: every error of reading
// one says where, as file:line: what is wrong.
type lineError struct {
	file string
	line int // 1-based
	err  error
}

func (e *lineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.file, e.line, e.err) }

// Unwrap returns the underlying problem, often a *fieldError.
func (e *lineError) Unwrap() error { return e.err }

// reader streams events from a history in the JSON Lines format, on one
// goroutine. It holds one line in memory at a time, so it reads histories
// of any size: the Follower reads with it, and a Serial Read.
type reader struct {
	name  string
	br    *bufio.Reader
	lines int // the lines read
	dec   *decoder
	long  []byte
	// cut is set when the file ended in the middle of a JSON value: the
	// tail a killed writer left behind (see unfinished).
	cut bool
}

// newReader returns a reader of r; name is used in error messages,
// usually the file path.
func newReader(r io.Reader, name string) *reader {
	return newReaderSize(r, name, readerBytes)
}

// readerBytes is the size of a reader's buffer. A line longer than the
// buffer is read in pieces and joined, so the size changes only the speed.
const readerBytes = 1 << 20

// newReaderSize is newReader with a buffer of size bytes (at least 16);
// the fuzz targets make it small, as they read many small inputs and
// allocating a large buffer for each would take most of their time.
func newReaderSize(r io.Reader, name string, size int) *reader {
	return &reader{name: name, br: bufio.NewReaderSize(r, size), dec: newDecoder()}
}

// partial reports whether the input ended with a truncated line that was
// dropped.
func (r *reader) partial() bool { return r.cut }

// line returns the 1-based number of the line most recently read.
func (r *reader) line() int { return r.lines }

// next reads the next event into e. It returns io.EOF after the last event
// and a *lineError for malformed input. Blank lines are skipped.
func (r *reader) next(e *Event) error {
	for {
		raw, err := r.readLine()
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		if err := r.dec.decodeLine(raw, e); err != nil {
			if raw[len(raw)-1] != '\n' && unfinished(raw) {
				// An unterminated last line cut short in its JSON is
				// what a writer killed mid-write leaves; everything
				// before it is intact, so the history stays checkable.
				r.cut = true
				return io.EOF
			}
			return &lineError{file: r.name, line: r.lines, err: err}
		}
		return nil
	}
}

func (r *reader) readLine() ([]byte, error) {
	r.long = r.long[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		switch {
		case err == nil:
			line := chunk
			if len(r.long) > 0 {
				line = append(r.long, chunk...)
			}
			if len(line)-1 > maxLineBytes { // the newline does not count
				return nil, r.tooLong()
			}
			r.lines++
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			r.long = append(r.long, chunk...)
			if len(r.long) > maxLineBytes {
				return nil, r.tooLong()
			}
		case errors.Is(err, io.EOF):
			r.long = append(r.long, chunk...)
			if len(r.long) == 0 {
				return nil, io.EOF
			}
			if len(r.long) > maxLineBytes {
				return nil, r.tooLong()
			}
			r.lines++
			return r.long, nil
		default:
			return nil, fmt.Errorf("read %s: %w", r.name, err)
		}
	}
}

// tooLong reports the line being read as longer than maxLineBytes.
func (r *reader) tooLong() error {
	return &lineError{file: r.name, line: r.lines + 1, err: fmt.Errorf("line longer than %d bytes", maxLineBytes)}
}
