package harness

import (
	"crypto/rand"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"strings"
)

// A run's resources are named for the run, <run id>-r0 … <run id>-rN, so
// that nothing an earlier run left on a durable receiver (a SQLite store,
// a table that keeps its rows) can be mistaken for this run's writes: a
// second run against the same receiver then tests it afresh. Fixed names
// (Config.Workload.ResourceNames) keep what earlier runs left; the run observes it
// before its workers start and starts the model and the tokens from it
// (observe.go). With fixed names the run id goes into the values instead,
// so that a value names one write of this run.

// runIDLength is the length of a run id: 36^6, two billion, is enough
// that two runs of one receiver do not meet by chance.
const runIDLength = 6

// newRunID returns the run's id: drawn from the seed on a virtual clock
// (Deterministic, VirtualClock), so that the same seed gives the same
// history byte for byte, and at random on the real clock, so that
// reproducing a real run with its seed still uses fresh resources. Two
// seeded runs with one seed therefore name the same resources: each
// needs a fresh receiver.
func newRunID(seed uint64, fromSeed bool) string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	seeded := mrand.New(mrand.NewPCG(seed, 0x7e5f1d))
	pick := func() int { return seeded.IntN(len(alphabet)) }
	if !fromSeed {
		pick = func() int {
			v, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
			if err != nil {
				return seeded.IntN(len(alphabet)) // no entropy: the seed still varies
			}
			return int(v.Int64())
		}
	}
	var b strings.Builder
	for range runIDLength {
		b.WriteByte(alphabet[pick()])
	}
	return b.String()
}

// resourceNames returns the run's resources and the prefix its values
// carry: of a shard, the resources it owns.
func resourceNames(cfg *Config, runID string) (names []string, valuePrefix string) {
	if cfg.Workload.Shard != nil {
		return cfg.Workload.Shard.Of(cfg.Workload.ResourceNames), runID + "-"
	}
	if len(cfg.Workload.ResourceNames) > 0 {
		return cfg.Workload.ResourceNames, runID + "-"
	}
	for i := range cfg.Workload.Resources {
		names = append(names, fmt.Sprintf("%s-r%d", runID, i))
	}
	return names, ""
}

// validResourceName reports what is wrong with a fixed resource name, or
// "": names travel in URLs, SQL parameters and file names, so they are
// kept to characters that need no escaping anywhere.
func validResourceName(name string) string {
	if name == "" {
		return "empty"
	}
	if len(name) > 128 {
		return fmt.Sprintf("%q is longer than 128 bytes", name)
	}
	for _, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._:-", c)
		if !ok {
			return fmt.Sprintf("%q has %q; use letters, digits and . _ : -", name, c)
		}
	}
	return ""
}
