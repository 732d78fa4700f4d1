package histories

import (
	"context"
	"fmt"
)

// ReadFiles reads the history at each path, as ReadFile does, and joins
// several into one (Join), each part named by its path; placed says where
// each went, and is nil for one path. When ctx is done first, ReadFiles
// returns ctx's error at once and leaves the file being read to be read
// to its end on its own, as a read cannot be stopped: for a caller about
// to give up, such as a command that is interrupted.
func ReadFiles(ctx context.Context, paths []string) (h *History, placed []Placed, err error) {
	if len(paths) == 1 {
		h, err := readFileCtx(ctx, paths[0])
		return h, nil, err
	}
	parts := make([]Part, len(paths))
	for i, p := range paths {
		if parts[i].History, err = readFileCtx(ctx, p); err != nil {
			return nil, nil, err
		}
		parts[i].Name = p
	}
	return Join(parts)
}

// readFileCtx is ReadFile that returns when ctx is done.
func readFileCtx(ctx context.Context, path string) (*History, error) {
	type result struct {
		h   *History
		err error
	}
	done := make(chan result, 1)
	go func() {
		h, err := ReadFile(path)
		done <- result{h, err}
	}()
	select {
	case r := <-done:
		return r.h, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("read %s: %w", path, ctx.Err())
	}
}
