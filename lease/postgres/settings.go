package pglease

import (
	"fmt"
	"slices"

	"github.com/fencecheck/fencecheck/lease/private"
)

// Settings are the durability settings of a private PostgreSQL cluster,
// as the query of a spec gives them: postgres?synchronous_commit=off.
// They decide whether a committed grant, and the sequence value it took,
// is still there after a crash.
type Settings struct {
	// SynchronousCommit is when a commit is acknowledged: on (once its
	// WAL is flushed to disk), off (before; the WAL writer flushes it
	// within three times wal_writer_delay, 200 ms), local, remote_write
	// or remote_apply (the same as on without standbys). The lease
	// service's sessions use it too.
	SynchronousCommit string
	// Fsync off makes the server never ask the kernel to flush: what it
	// wrote survives a crash of the server's processes, not of the
	// machine.
	Fsync bool
	// FullPageWrites off risks torn pages after a machine crash.
	FullPageWrites bool
	// Standby adds a streaming standby to the cluster (see standby.go):
	// "" none, StandbyAsync or StandbySync (the primary's commits wait
	// for the standby to flush them, synchronous_standby_names '*').
	Standby string
	_       struct{}
}

// The values of the standby setting.
const (
	StandbyAsync = "async"
	StandbySync  = "sync"
)

// DefaultSettings are PostgreSQL's own: synchronous_commit on, fsync on,
// full_page_writes on.
func DefaultSettings() Settings {
	return Settings{SynchronousCommit: "on", Fsync: true, FullPageWrites: true}
}

// settingNames are the settings a spec may give, in the order messages
// list them.
var settingNames = []string{"synchronous_commit", "fsync", "full_page_writes", "standby"}

// ParseSettings reads the query of a private postgres spec (the part
// after "postgres?") over DefaultSettings. An unknown setting, a value
// the server would refuse, or a setting given twice is an error naming
// it.
func ParseSettings(query string) (Settings, error) {
	s := DefaultSettings()
	q, err := private.Settings(query, "a private PostgreSQL cluster", settingNames)
	if err != nil {
		return s, err
	}
	if v, ok := q["synchronous_commit"]; ok {
		if !slices.Contains([]string{"on", "off", "local", "remote_write", "remote_apply"}, v) {
			return s, fmt.Errorf("synchronous_commit=%s: want on, off, local, remote_write or remote_apply", v)
		}
		s.SynchronousCommit = v
	}
	if v, ok := q["standby"]; ok {
		if v != StandbyAsync && v != StandbySync {
			return s, fmt.Errorf("standby=%s: want %s or %s", v, StandbyAsync, StandbySync)
		}
		s.Standby = v
	}
	for name, field := range map[string]*bool{"fsync": &s.Fsync, "full_page_writes": &s.FullPageWrites} {
		switch v, ok := q[name]; {
		case !ok:
		case v == "on":
			*field = true
		case v == "off":
			*field = false
		default:
			return s, fmt.Errorf("%s=%s: want on or off", name, v)
		}
	}
	return s, nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// String says what the settings make of a crash, for the issuer's name:
// "synchronous_commit off, fsync on".
func (s Settings) String() string {
	out := fmt.Sprintf("synchronous_commit %s, fsync %s", s.SynchronousCommit, onOff(s.Fsync))
	if !s.FullPageWrites {
		out += ", full_page_writes off"
	}
	if s.Standby != "" {
		out += ", a streaming standby (" + s.Standby + ")"
	}
	return out
}

// config are the lines fencecheck appends to the cluster's
// postgresql.conf: loopback on port, no Unix socket, the settings.
func (s Settings) config(port int) string {
	return fmt.Sprintf(`
# Added by fencecheck for one run: a private cluster on loopback.
listen_addresses = '127.0.0.1'
port = %d
unix_socket_directories = ''
synchronous_commit = %s
fsync = %s
full_page_writes = %s
`, port, s.SynchronousCommit, onOff(s.Fsync), onOff(s.FullPageWrites)) + s.replication()
}

// replication are the lines a primary with a standby adds: with a
// synchronous standby, a commit waits until any one standby has flushed
// it ('*': the standby names itself walreceiver, and only one connects).
func (s Settings) replication() string {
	if s.Standby != StandbySync {
		return ""
	}
	return "synchronous_standby_names = '*'\n"
}

// standbyConfig are the lines appended to the standby's copy of the
// primary's postgresql.conf: its own port, no synchronous standby of its
// own, so that once promoted it commits without one, and a reconnection
// to a restarted primary within a tenth of a second, not five.
func standbyConfig(port int) string {
	return fmt.Sprintf(`
# Added by fencecheck: the streaming standby of the private cluster.
port = %d
synchronous_standby_names = ''
hot_standby = on
wal_retrieve_retry_interval = 100ms
`, port)
}
