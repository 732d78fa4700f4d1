package histories

import (
	"bytes"
	"errors"
	"io"
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

// follow reads data with a Follower: the operations completed, by ID,
// the other events, the error of the first line refused and the tally.
func follow(data []byte) (*collect, *Follower, Tally, error) {
	c := &collect{}
	f := NewFollower(c)
	rd := NewReader(bytes.NewReader(data), "fuzz.jsonl")
	var tally Tally
	var e Event
	for {
		err := rd.Next(&e)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, tally, err
		}
		if err := f.Add(&e, rd.Line()); err != nil {
			return nil, nil, tally, &LineError{File: "fuzz.jsonl", Line: rd.Line(), Err: err}
		}
	}
	f.Finish()
	for i := range c.completed {
		tally.Add(&c.completed[i])
	}
	slices.SortFunc(c.completed, func(a, b Operation) int { return a.ID - b.ID })
	return c, f, tally, nil
}

// FuzzFollowMatchesRead asks the Follower for what Read gives: the same
// operations, other events, counts, evidence and errors, word for word,
// and each operation announced when it began.
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
		c, fl, tally, gerr := follow(data)
		if werr != nil || gerr != nil {
			require.Error(t, werr, "Read refused nothing; Follower: %v", gerr)
			require.Error(t, gerr, "Follower refused nothing; Read: %v", werr)
			assert.Equal(t, werr.Error(), gerr.Error())
			return
		}
		ops := h.Operations
		if ops == nil {
			ops = []Operation{}
		}
		if c.completed == nil {
			c.completed = []Operation{}
		}
		assert.Equal(t, ops, c.completed)
		assert.Equal(t, len(h.Others), len(c.others))
		assert.Equal(t, Count(h.Operations), tally.Counts())
		assert.Equal(t, h.Evidence(), tally.Evidence(fl.Errors()))
		ch := CompressHistory(h) // what fencecheck check counts and measures
		assert.Equal(t, Count(h.Operations), ch.Count())
		assert.Equal(t, h.Evidence(), ch.Evidence())
		assert.Equal(t, h.Format, fl.Format())
		assert.Equal(t, h.Events, fl.Events())
		for _, op := range c.invoked {
			assert.Equal(t, StatusUnknown, op.Status)
			assert.Equal(t, Infinity, op.Return)
		}
	})
}
