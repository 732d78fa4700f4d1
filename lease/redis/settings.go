package redislease

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/lease/private"
)

// Settings are the persistence settings of a private redis-server, as
// the query of a spec gives them: redis?appendonly=yes&appendfsync=always.
// They decide what the server still has after a crash, and so whether
// its counters, the tokens, survive one.
type Settings struct {
	// AppendOnly turns the append-only file on (appendonly yes): every
	// write is logged, and replayed at the next start.
	AppendOnly bool
	// AppendFsync is when the append-only file reaches the disk: always
	// (before each reply), everysec, or no (when the kernel decides).
	// Only used with AppendOnly.
	AppendFsync string
	// Save are the RDB snapshot points ("3600 1 300 100 60 10000": after
	// 3600 s and 1 change, …); empty takes no snapshots.
	Save string
	// Replicas is how many asynchronous replicas the primary has: 0, or
	// 1, a second private redis-server that the issuer-failover fault
	// promotes (see Replicated).
	Replicas int
	// Wait is how many replicas must have each grant before it is handed
	// out: after its script, a grant runs WAIT <Wait> <WaitTimeout> on the
	// same connection, and a grant fewer replicas acknowledged in time is
	// refused (its lease ended, its token never handed out). 0 waits for
	// none: stock Redis, whose replication is asynchronous.
	Wait int
	_    struct{}
}

// WaitTimeout bounds the WAIT of a grant with Settings.Wait: a replica
// on loopback acknowledges in well under a millisecond, so a grant that
// waited this long found no replica to acknowledge it.
const WaitTimeout = 500 * time.Millisecond

// DefaultSettings are a stock Redis 7's: RDB snapshots at its default
// points, no append-only file. A server that crashes comes back with its
// last snapshot, which a run of a few minutes has not taken: the weak
// issuer docs/leases.md describes.
func DefaultSettings() Settings {
	return Settings{AppendFsync: "everysec", Save: "3600 1 300 100 60 10000"}
}

// settingNames are the settings a spec may give, in the order messages
// list them.
var settingNames = []string{"appendonly", "appendfsync", "save", "replicas", "wait"}

// ParseSettings reads the query of a private redis spec (the part after
// "redis?") over DefaultSettings. An unknown setting, a value the server
// would refuse, a setting given twice, or appendfsync without
// appendonly=yes (where it has no effect) is an error naming it.
func ParseSettings(query string) (Settings, error) {
	s := DefaultSettings()
	q, err := private.Settings(query, "a private "+ServerName, settingNames)
	if err != nil {
		return s, err
	}
	if v, ok := q["appendonly"]; ok {
		switch v {
		case "yes":
			s.AppendOnly = true
		case "no":
		default:
			return s, fmt.Errorf("appendonly=%s: want yes or no", v)
		}
	}
	if v, ok := q["appendfsync"]; ok {
		if !slices.Contains([]string{"always", "everysec", "no"}, v) {
			return s, fmt.Errorf("appendfsync=%s: want always, everysec or no", v)
		}
		if !s.AppendOnly {
			return s, fmt.Errorf("appendfsync=%s has no effect without appendonly=yes", v)
		}
		s.AppendFsync = v
	}
	if v, ok := q["save"]; ok {
		if err := checkSave(v); err != nil {
			return s, err
		}
		s.Save = v
	}
	for _, c := range []struct {
		name string
		to   *int
	}{{"replicas", &s.Replicas}, {"wait", &s.Wait}} {
		if v, ok := q[c.name]; ok {
			if v != "0" && v != "1" {
				return s, fmt.Errorf("%s=%s: want 0 or 1", c.name, v)
			}
			*c.to = int(v[0] - '0')
		}
	}
	if s.Wait > s.Replicas {
		return s, fmt.Errorf("wait=%d needs as many replicas (replicas=%d)", s.Wait, s.Replicas)
	}
	return s, nil
}

// checkSave checks RDB snapshot points: pairs of seconds and changes.
func checkSave(save string) error {
	f := strings.Fields(save)
	bad := len(f)%2 != 0
	for _, n := range f {
		if v, err := strconv.ParseUint(n, 10, 31); err != nil || v == 0 {
			bad = true
		}
	}
	if bad {
		return fmt.Errorf("save=%s: want pairs of seconds and changes (\"3600 1 300 100\"), or nothing for no snapshots", save)
	}
	return nil
}

// String says what the settings make of a crash, for the issuer's name:
// "appendonly yes, appendfsync always".
func (s Settings) String() string {
	persistence := s.persistence()
	switch {
	case s.Wait > 0:
		return fmt.Sprintf("%s, %d replica; grants wait for it (WAIT %d %v), refused otherwise", persistence, s.Replicas, s.Wait, WaitTimeout)
	case s.Replicas > 0:
		return fmt.Sprintf("%s, %d asynchronous replica", persistence, s.Replicas)
	}
	return persistence
}

// persistence says what the settings make of a crash.
func (s Settings) persistence() string {
	switch {
	case s.AppendOnly:
		return "appendonly yes, appendfsync " + s.AppendFsync
	case s.Save == "":
		return "no persistence"
	case s.Save == DefaultSettings().Save:
		return "RDB snapshots, appendonly no"
	}
	return fmt.Sprintf("RDB snapshots at %q, appendonly no", s.Save)
}

// config is the redis.conf of a private server on port, with its data
// in dir; a replica's names its primary's address (replicaOf), else "".
func (s Settings) config(port int, dir, replicaOf string) string {
	appendOnly := "no"
	if s.AppendOnly {
		appendOnly = "yes"
	}
	return fmt.Sprintf(`# Written by fencecheck for one run: a private redis-server on loopback.
bind 127.0.0.1
port %d
daemonize no
logfile ""
dir %s
dbfilename dump.rdb
save %s
appendonly %s
appendfsync %s
repl-diskless-sync-delay 0
`, port, strconv.Quote(dir), strconv.Quote(s.Save), appendOnly, s.AppendFsync) + replicaConfig(replicaOf)
}

// replicaConfig is the part of a replica's redis.conf that makes it one.
func replicaConfig(primary string) string {
	if primary == "" {
		return ""
	}
	host, port, _ := strings.Cut(primary, ":")
	return fmt.Sprintf("replicaof %s %s\nreplica-read-only yes\n", host, port)
}
