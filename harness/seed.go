package harness

import (
	"crypto/rand"
	"encoding/binary"
	"time"
)

// RandomSeed draws a seed for a run that is given none (Config.Runtime.Seed):
// from the system's randomness, else the clock. It is below 2^63, so that
// any tool that reads it as a signed integer repeats the run.
func RandomSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:]) >> 1
}
