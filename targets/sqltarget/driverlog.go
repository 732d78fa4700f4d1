package sqltarget

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// LogFile is the file in the run directory that receives what the
// database driver logs on its own (go-sql-driver/mysql's "closing bad idle
// connection: EOF" after the server ended an idle connection). The driver
// would write it to stderr, between the command's own lines, although it
// changes nothing: the pool retries on another connection. The file is
// created only when the driver says something.
const LogFile = "sql.log"

// maxPendingLines bounds what the log keeps before it knows the run
// directory.
const maxPendingLines = 100

// driverLog is a driver's logger for one target (mysql.Config.Logger,
// per connector, so that two targets in one process never share it). Until
// UseRunDir names the run directory it keeps the lines in memory, and
// without one they are discarded with the target.
type driverLog struct {
	mu      sync.Mutex
	dir     string
	pending []string
	secrets []string
}

// Print logs one message, as log.Print would (the mysql.Logger interface).
func (l *driverLog) Print(v ...any) {
	msg := strings.TrimRight(fmt.Sprint(v...), "\n")
	for _, s := range l.secrets {
		msg = strings.ReplaceAll(msg, s, "xxxxx")
	}
	line := time.Now().UTC().Format(time.RFC3339Nano) + " " + msg + "\n"
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dir == "" {
		if len(l.pending) < maxPendingLines {
			l.pending = append(l.pending, line)
		}
		return
	}
	l.write(line)
}

// useDir sends the lines kept so far, and every later one, to LogFile in
// dir.
func (l *driverLog) useDir(dir string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dir = dir
	if len(l.pending) > 0 {
		l.write(strings.Join(l.pending, ""))
		l.pending = nil
	}
}

// write appends to the log file. A log that cannot be written is lost: a
// logger has no one to tell, and the run does not depend on it.
func (l *driverLog) write(s string) {
	f, err := os.OpenFile(filepath.Join(l.dir, LogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	_, _ = f.WriteString(s)
	_ = f.Close()
}

// UseRunDir sends what the database driver logs to LogFile in the run
// directory (the harness calls it once the directory exists).
func (t *Target) UseRunDir(dir string) { t.log.useDir(dir) }
