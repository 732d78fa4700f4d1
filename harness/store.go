package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Files of a run directory.
const (
	HistoryFile = "history.jsonl"
	ResultFile  = "result.json"
	SummaryFile = "summary.txt"
	LatestLink  = "latest"
)

// TimestampFormat names run directories: UTC, sortable, with milliseconds
// so that quick successive runs do not collide.
const TimestampFormat = "20060102T150405.000Z"

// CreateRunDir makes store/<name>/<UTC timestamp>/ and points store/latest
// at it. A run records its history straight into it, so a killed run
// leaves its history there; verify writes its results there too.
func CreateRunDir(store, name string, at time.Time) (string, error) {
	stamp := at.UTC().Format(TimestampFormat)
	rel := filepath.Join(name, stamp)
	dir := filepath.Join(store, rel)
	for i := 1; ; i++ {
		err := os.MkdirAll(filepath.Dir(dir), 0o755)
		if err == nil {
			err = os.Mkdir(dir, 0o755)
		}
		if err == nil {
			break
		}
		if !os.IsExist(err) || i > 100 {
			return "", fmt.Errorf("create run directory %s: %w", dir, err)
		}
		rel = filepath.Join(name, fmt.Sprintf("%s-%d", stamp, i))
		dir = filepath.Join(store, rel)
	}
	if err := pointLatest(store, rel); err != nil {
		return "", err
	}
	return dir, nil
}

// pointLatest replaces store/latest atomically: a new link is renamed over
// the old one.
func pointLatest(store, rel string) error {
	link := filepath.Join(store, LatestLink)
	tmp := link + ".tmp"
	_ = os.Remove(tmp)
	if err := os.Symlink(rel, tmp); err != nil {
		return fmt.Errorf("link %s: %w", link, err)
	}
	if err := os.Rename(tmp, link); err != nil {
		return fmt.Errorf("link %s: %w", link, err)
	}
	return nil
}

// RunName derives a folder name from a target spec:
// "memory://check-then-set" → "memory-check-then-set".
func RunName(target string) string {
	if target == "" {
		return "run"
	}
	var b strings.Builder
	dash := false
	for _, r := range target {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_'
		if ok {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-.")
}

func writeResult(dir string, res *Result) error {
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ResultFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write result %s: %w", dir, err)
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), []byte(res.Summary()), 0o644); err != nil {
		return fmt.Errorf("write summary %s: %w", dir, err)
	}
	return nil
}
