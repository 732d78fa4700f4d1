package proxy

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
)

// pipe runs one request through a toxic under e's simulation and returns
// what the worker got, the virtual times at which the toxic forwarded, and
// the error the worker saw.
func pipe(t *testing.T, e *fakeenv.Env, tx Toxic, r *Request, answers ...forwarded) (*Response, []time.Duration, error) {
	t.Helper()
	var resp *Response
	var err error
	var at []time.Duration
	next := func(context.Context, *Request) (*Response, error) {
		i := len(at)
		at = append(at, time.Duration(e.Sim.Now()))
		if i < len(answers) {
			return answers[i].resp, answers[i].err
		}
		return &Response{Status: 200}, nil
	}
	require.NoError(t, e.Sim.Run(func() { resp, err = tx.Pipe(context.Background(), r, next) }))
	return resp, at, err
}

// forwarded is what the receiver answers one forward.
type forwarded struct {
	resp *Response
	err  error
}

// write and read are described requests as the http target sends them.
func write(resource string, token uint64) *Request {
	return &Request{Seq: 1, Op: "write", Resource: resource, Token: token, Method: "PUT", Target: "/resources/" + resource}
}

func read(resource string) *Request {
	return &Request{Seq: 1, Op: "read", Resource: resource, Method: "GET", Target: "/resources/" + resource}
}
