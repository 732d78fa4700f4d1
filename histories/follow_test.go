package histories

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// collect is a FollowSink that keeps what it is given.
type collect struct {
	invoked, completed []Operation
	others             []Event
}

func (c *collect) Invoked(op *Operation)   { c.invoked = append(c.invoked, *op) }
func (c *collect) Completed(op *Operation) { c.completed = append(c.completed, *op) }
func (c *collect) Other(e *Event)          { c.others = append(c.others, *e) }

// followedHistory is what a Follower made of a history: the operations
// completed, by ID, the other events, and what Finish counted.
type followedHistory struct {
	*collect
	f         *Follower
	counts    Counts
	evidence  Evidence
	truncated bool
}

// follow reads data with a Follower; the error is the first line's it
// refused.
func follow(data []byte) (followedHistory, error) {
	c := &collect{}
	f := NewFollower(c)
	truncated, err := f.Follow(context.Background(), bytes.NewReader(data), "fuzz.jsonl")
	if err != nil {
		return followedHistory{}, err
	}
	counts, evidence := f.Finish()
	slices.SortFunc(c.completed, func(a, b Operation) int { return a.ID - b.ID })
	return followedHistory{collect: c, f: f, counts: counts, evidence: evidence, truncated: truncated}, nil
}

// FuzzFollowMatchesRead asks the Follower for what Read gives: the same
// operations, other events, counts, evidence and errors, word for word,
// the same truncation, and each operation announced when it began.
func FuzzFollowMatchesRead(f *testing.F) {
	f.Add([]byte("{\"index\":0,\"time\":0,\"process\":0,\"type\":\"invoke\",\"f\":\"read\",\"resource\":\"r\"}\n" +
		"{\"index\":1,\"time\":1,\"process\":0,\"type\":\"ok\",\"f\":\"read\",\"resource\":\"r\",\"value\":\"x\"}\n"))
	f.Add([]byte("{\"index\":0,\"time\":0,\"actor\":\"harness\",\"f\":\"header\",\"format\":1}\n" +
		"{\"index\":1,\"time\":0,\"actor\":\"harness\",\"f\":\"initial\",\"resource\":\"r\",\"token\":3,\"value\":\"v\"}\n" +
		"{\"index\":2,\"time\":0,\"process\":0,\"type\":\"invoke\",\"f\":\"write\",\"resource\":\"r\",\"token\":4,\"value\":\"w\"}\n" +
		"{\"index\":3,\"time\":1,\"process\":0,\"type\":\"info\",\"f\":\"write\",\"resource\":\"r\"}\n" +
		"{\"index\":4,\"time\":2,\"process\":0,\"type\":\"invoke\",\"f\":\"read\",\"resource\":\"r\"}\n"))
	f.Add([]byte("{\"index\":1,\"time\":0,\"process\":0,\"type\":\"invoke\",\"f\":\"write\",\"resource\":\"r\",\"token\":4,\"value\":\"w\"}\n" +
		"{\"index\":2,\"time\":0,\"actor\":\"harness\",\"f\":\"initial\",\"resource\":\"r\",\"token\":3,\"value\":\"v\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, werr := readSequential(bytes.NewReader(data), "fuzz.jsonl")
		c, gerr := follow(data)
		if werr != nil || gerr != nil {
			require.Error(t, werr, "Read refused nothing; Follower: %v", gerr)
			require.Error(t, gerr, "Follower refused nothing; Read: %v", werr)
			assert.Equal(t, werr.Error(), gerr.Error())
			return
		}
		ops := operations(h)
		if c.completed == nil {
			c.completed = []Operation{}
		}
		assert.Equal(t, ops, c.completed)
		assert.Equal(t, len(h.Others), len(c.others))
		assert.Equal(t, h.Count(), c.counts)
		assert.Equal(t, h.Evidence(), c.evidence)
		assert.Equal(t, h.Truncated, c.truncated)
		assert.Equal(t, h.Format, c.f.p.c.Format)
		assert.Equal(t, h.Events, c.f.p.c.Events)
		for _, op := range c.invoked {
			assert.Equal(t, StatusUnknown, op.Status)
			assert.Equal(t, Infinity, op.Return)
		}
	})
}
