package histories

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// unfinished reports whether the last line of a history, one without a
// newline that did not decode, is what a writer killed in the middle of a
// line leaves behind: the beginning of a JSON value that the end of the
// file cut short. Only such a line is dropped. A complete JSON value with
// a bad field, or bytes that no JSON value begins with, is an error like
// any other line's, or a malformed final line would flip a verdict: a
// history whose last line says "acepted" would be judged without it.
func unfinished(raw []byte) bool {
	var v json.RawMessage
	err := json.NewDecoder(bytes.NewReader(raw)).Decode(&v)
	return errors.Is(err, io.ErrUnexpectedEOF)
}
