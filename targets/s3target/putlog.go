package s3target

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/fencecheck/fencecheck/internal/redact"
)

// LogFile is the file in the run directory where the target logs every
// PUT it sent, in the store's terms: the bucket and object key, the
// token and value, the condition (If-Match: <ETag> or If-None-Match: *)
// and the answer (the new object's ETag, or the error code). A
// counterexample's write is found there by its value, to see which ETag
// the old owner's If-Match named and which object it replaced.
const LogFile = "s3.log"

// putLog appends to LogFile once the run directory is known.
type putLog struct {
	mu sync.Mutex
	f  *os.File
}

// UseRunDir implements targets.RunDirUser: the PUTs from now on are
// logged in LogFile in dir. A log that cannot be opened is not kept: the
// run does not depend on it.
func (t *Target) UseRunDir(dir string) {
	f, err := os.OpenFile(filepath.Join(dir, LogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	t.log.mu.Lock()
	old := t.log.f
	t.log.f = f
	t.log.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
}

// logPut logs one PUT and its answer.
func (t *Target) logPut(key string, content string, c condition, etag string, err error) {
	t.log.mu.Lock()
	defer t.log.mu.Unlock()
	if t.log.f == nil {
		return
	}
	token, value, _ := decode(content)
	answer := "200 ETag " + etag
	if err != nil {
		answer = fmt.Sprintf("%d %s", status(err), code(err))
		if status(err) == 0 {
			answer = "no answer: " + redact.Error(err, t.secrets).Error()
		}
	}
	_, _ = fmt.Fprintf(t.log.f, "%s PUT object key %s/%s token %d value %s (%s) → %s\n",
		time.Now().UTC().Format(time.RFC3339Nano), t.bucket, key, token, strconv.Quote(clip(value)), c.describe(), answer)
}

// closeLog closes LogFile.
func (t *Target) closeLog() {
	t.log.mu.Lock()
	defer t.log.mu.Unlock()
	if t.log.f != nil {
		_ = t.log.f.Close()
		t.log.f = nil
	}
}
