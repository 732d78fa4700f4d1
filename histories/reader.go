package histories

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes bounds one history line, its newline not counted. Real
// lines are a few hundred bytes;
// the bound keeps a corrupt file without newlines from exhausting memory.
const MaxLineBytes = 16 << 20

// LineError locates a problem in a history file.
type LineError struct {
	File string
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

// Unwrap returns the underlying problem, often a *FieldError.
func (e *LineError) Unwrap() error { return e.Err }

// Reader streams events from a history in the JSON Lines format. It holds
// one line in memory at a time, so it reads histories of any size.
type Reader struct {
	name string
	br   *bufio.Reader
	line int
	dec  *decoder
	long []byte
	// partial is set when the file ended in the middle of a JSON value:
	// the tail a killed writer left behind (see unfinished).
	partial bool
}

// NewReader returns a Reader of r; name is used in error messages, usually
// the file path.
func NewReader(r io.Reader, name string) *Reader {
	return newReaderSize(r, name, readerBytes)
}

// readerBytes is the size of a Reader's buffer. A line longer than the
// buffer is read in pieces and joined, so the size changes only the speed.
const readerBytes = 1 << 20

// newReaderSize is NewReader with a buffer of size bytes (at least 16);
// the fuzz targets make it small, as they read many small inputs and
// allocating a large buffer for each would take most of their time.
func newReaderSize(r io.Reader, name string, size int) *Reader {
	return &Reader{name: name, br: bufio.NewReaderSize(r, size), dec: newDecoder()}
}

// Partial reports whether the input ended with a truncated line that was
// dropped.
func (r *Reader) Partial() bool { return r.partial }

// Line returns the 1-based number of the line most recently read.
func (r *Reader) Line() int { return r.line }

// Next reads the next event into e. It returns io.EOF after the last event
// and a *LineError for malformed input. Blank lines are skipped.
func (r *Reader) Next(e *Event) error {
	for {
		raw, err := r.readLine()
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		if err := r.dec.Decode(raw, e); err != nil {
			if raw[len(raw)-1] != '\n' && unfinished(raw) {
				// An unterminated last line cut short in its JSON is
				// what a writer killed mid-write leaves; everything
				// before it is intact, so the history stays checkable.
				r.partial = true
				return io.EOF
			}
			return &LineError{File: r.name, Line: r.line, Err: err}
		}
		return nil
	}
}

func (r *Reader) readLine() ([]byte, error) {
	r.long = r.long[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		switch {
		case err == nil:
			line := chunk
			if len(r.long) > 0 {
				line = append(r.long, chunk...)
			}
			if len(line)-1 > MaxLineBytes { // the newline does not count
				return nil, r.tooLong()
			}
			r.line++
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			r.long = append(r.long, chunk...)
			if len(r.long) > MaxLineBytes {
				return nil, r.tooLong()
			}
		case errors.Is(err, io.EOF):
			r.long = append(r.long, chunk...)
			if len(r.long) == 0 {
				return nil, io.EOF
			}
			if len(r.long) > MaxLineBytes {
				return nil, r.tooLong()
			}
			r.line++
			return r.long, nil
		default:
			return nil, fmt.Errorf("read %s: %w", r.name, err)
		}
	}
}

// tooLong reports the line being read as longer than MaxLineBytes.
func (r *Reader) tooLong() error {
	return &LineError{File: r.name, Line: r.line + 1, Err: fmt.Errorf("line longer than %d bytes", MaxLineBytes)}
}
