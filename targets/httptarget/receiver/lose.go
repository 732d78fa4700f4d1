package receiver

import (
	"context"
	"sync"
)

// loseEvery is how often LoseAcknowledged drops a write: every 50th
// accepted one.
const loseEvery = 50

// loseAcknowledged is the LoseAcknowledged writer: fenced correctly, under
// one lock, but every loseEvery-th write it accepts is answered as
// applied and not stored, as a write-back cache that drops an entry
// would. Each answer is right when it is given; only a read after a
// dropped write shows the loss. Deterministic, so that a test of the
// battery does not depend on luck: the count is of the process's accepted
// writes, from its start.
func loseAcknowledged(s Store) writer {
	var mu sync.Mutex
	accepted := 0
	return func(ctx context.Context, res string, c Cell) (bool, uint64, error) {
		mu.Lock()
		defer mu.Unlock()
		cur, _, err := s.Get(ctx, res)
		if err != nil || !Greater.accepts(cur.Token, c.Token) {
			return false, cur.Token, err
		}
		accepted++
		if accepted%loseEvery == 0 {
			return true, c.Token, nil // acknowledged, never stored
		}
		if err := s.Put(ctx, res, c); err != nil {
			return false, 0, err
		}
		return true, c.Token, nil
	}
}
