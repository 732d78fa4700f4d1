package runstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// tailPoll is how often a followed history that has no new line is
// looked at again.
const tailPoll = 100 * time.Millisecond

// Tail opens the history file at path to be read while its run is still
// writing it, like tail -f: at its end a read waits and reads again,
// until the run's result.json appears beside it. A run closes its history
// before it writes its result, so once the result exists the history's
// end is written; Tail then reads what is left, and ends. ctx ends a
// wait.
func Tail(ctx context.Context, path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open history %s: %w", path, err)
	}
	result := filepath.Join(filepath.Dir(path), Result)
	done := func() bool {
		_, err := os.Stat(result)
		return err == nil
	}
	return &tail{ctx: ctx, f: f, done: done}, nil
}

type tail struct {
	ctx      context.Context
	f        *os.File
	done     func() bool
	finished bool
}

func (t *tail) Read(p []byte) (int, error) {
	for {
		n, err := t.f.Read(p)
		if n > 0 {
			return n, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if t.finished {
			return 0, io.EOF
		}
		if t.done() {
			t.finished = true // one more read: what was written before the result
			continue
		}
		select {
		case <-t.ctx.Done():
			return 0, t.ctx.Err()
		case <-time.After(tailPoll):
		}
	}
}

func (t *tail) Close() error { return t.f.Close() }
