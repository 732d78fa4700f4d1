package memory

import (
	"encoding/binary"
	"hash/fnv"
)

// oneIn picks one write in n for a rare defect, by a hash of what the
// write carries, salted by the defect's name: the same write is picked on
// every run, so a seeded run that meets the defect meets it again, and
// nothing random is drawn that the run's seed does not fix. Writes differ
// from run to run and from seed to seed by their resources' names, which
// carry the run's id.
func oneIn(n uint64, salt, resource string, token uint64, value string) bool {
	h := fnv.New64a()
	var tok [8]byte
	binary.BigEndian.PutUint64(tok[:], token)
	for _, part := range [][]byte{[]byte(salt), {0}, []byte(resource), {0}, tok[:], []byte(value)} {
		_, _ = h.Write(part)
	}
	return h.Sum64()%n == 0
}
