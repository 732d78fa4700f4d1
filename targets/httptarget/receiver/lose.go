package receiver

import (
	"context"
	"sync"
)

// loseEvery is how often LoseAcknowledged drops a write: every 50th
// accepted one on each resource.
const loseEvery = 50

// loseAcknowledged is the LoseAcknowledged writer: fenced correctly, under
// one lock, but every loseEvery-th write it accepts is answered as
// applied and not stored, as a write-back cache that drops an entry
// would. Each answer is right when it is given; only a read after a
// dropped write shows the loss. Deterministic, so that a test of the
// battery does not depend on luck: the count is of each resource's
// accepted writes since the process started. A count over all resources
// made the loss land wherever the scenarios' writes happened to add up to
// 50, which a write retried after a timeout moves: on a loaded machine
// it hit restart-durability's write instead.
func loseAcknowledged(s Store) writer {
	var mu sync.Mutex
	accepted := make(map[string]int)
	return func(ctx context.Context, res string, c Cell) (bool, uint64, error) {
		mu.Lock()
		defer mu.Unlock()
		cur, _, err := s.Get(ctx, res)
		if err != nil || !Greater.accepts(cur.Token, c.Token) {
			return false, cur.Token, err
		}
		accepted[res]++
		if accepted[res]%loseEvery == 0 {
			return true, c.Token, nil // acknowledged, never stored
		}
		if err := s.Put(ctx, res, c); err != nil {
			return false, 0, err
		}
		return true, c.Token, nil
	}
}
