package receiver

import "fmt"

// storePragmas are what the SQLite store sets on every connection and
// reads back once open: set is the value given, want what PRAGMA NAME
// answers when it applied. WAL with synchronous=FULL makes every commit
// durable before CompareAndPut returns; the busy timeout lets a second
// process (a restarted receiver still finding the old one's lock) wait
// rather than fail.
var storePragmas = []struct{ name, set, want string }{
	{"busy_timeout", "5000", "5000"},
	{"journal_mode", "WAL", "wal"},
	{"synchronous", "FULL", "2"},
}

// checkPragmas reads each of storePragmas back with read and refuses the
// store when one did not apply.
func checkPragmas(read func(pragma string) (string, error)) error {
	for _, p := range storePragmas {
		got, err := read(p.name)
		if err != nil {
			return fmt.Errorf("read back PRAGMA %s: %w", p.name, err)
		}
		if got == p.want {
			continue
		}
		why := "the store's writes would not be as durable as it promises"
		if p.name == "journal_mode" {
			why = "an in-memory or immutable database, or one on a file system without shared memory, cannot be in WAL mode, and without it " + why
		}
		return fmt.Errorf("PRAGMA %s is %q after setting it to %s: SQLite did not apply it; %s", p.name, got, p.set, why)
	}
	return nil
}
