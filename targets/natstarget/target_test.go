package natstarget

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

type step struct {
	token uint64
	value string
	want  histories.Outcome
}

// TestWriteRead plays one sequence of writes in each mode (check-then-set
// is correct without concurrency): the first write creates the key, a
// lower or equal token is rejected and leaves the stored value alone, a
// higher one replaces it; another resource is untouched.
func TestWriteRead(t *testing.T) {
	t.Parallel()
	steps := []step{{42, "a", histories.Accepted}, {41, "stale", histories.Rejected}, {42, "again", histories.Rejected}, {43, "b", histories.Accepted}}
	for _, m := range Modes() {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			tgt := open(t, modeOptions(m))
			ctx := context.Background()
			r, err := tgt.Read(ctx, "r0")
			require.NoError(t, err)
			assert.False(t, r.Found, "never written")
			for _, s := range steps {
				out, err := tgt.Write(ctx, "r0", s.token, s.value)
				require.NoError(t, err)
				assert.Equal(t, s.want, out, "token %d", s.token)
			}
			r, err = tgt.Read(ctx, "r0")
			require.NoError(t, err)
			assert.Equal(t, targets.Reading{Found: true, Value: "b", Token: 43, HasToken: true}, r)
			other, err := tgt.Read(ctx, "r1")
			require.NoError(t, err)
			assert.False(t, other.Found, "a token on one resource does not touch another")
		})
	}
}

// TestAcceptEqual: under accept-equal both modes accept a repeat of the
// stored token, and still reject a lower one.
func TestAcceptEqual(t *testing.T) {
	t.Parallel()
	for _, m := range Modes() {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			o := modeOptions(m)
			o.AcceptEqual = true
			tgt := open(t, o)
			ctx := context.Background()
			for _, s := range []step{{42, "a", histories.Accepted}, {42, "again", histories.Accepted}, {41, "stale", histories.Rejected}} {
				out, err := tgt.Write(ctx, "r0", s.token, s.value)
				require.NoError(t, err)
				assert.Equal(t, s.want, out, "token %d", s.token)
			}
			r, err := tgt.Read(ctx, "r0")
			require.NoError(t, err)
			assert.Equal(t, "again", r.Value)
		})
	}
}

// TestBigTokens: tokens are compared as integers up to 2^64-1 (a string
// or a double comparison would order these pairs wrongly), read back
// exactly, and the target declares that it stores every uint64.
func TestBigTokens(t *testing.T) {
	t.Parallel()
	tgt := open(t, modeOptions(ModeAtomic))
	assert.Equal(t, uint64(math.MaxUint64), targets.MaxToken(tgt))
	ctx := context.Background()
	for i, p := range [][2]uint64{{9, 10}, {1 << 53, 1<<53 + 1}, {math.MaxInt64, 1 << 63}, {math.MaxUint64 - 1, math.MaxUint64}} {
		r := fmt.Sprintf("r%d", i)
		for _, s := range []step{{p[0], "lo", histories.Accepted}, {p[1], "hi", histories.Accepted}, {p[0], "lo-again", histories.Rejected}} {
			out, err := tgt.Write(ctx, r, s.token, s.value)
			require.NoError(t, err)
			assert.Equal(t, s.want, out, "%d after %v", s.token, p)
		}
		got, err := tgt.Read(ctx, r)
		require.NoError(t, err)
		assert.Equal(t, targets.Reading{Found: true, Value: "hi", Token: p[1], HasToken: true}, got)
	}
}

// TestResourceNames: a resource that is no valid KV key (spaces, a
// slash, a dot, non-ASCII) is stored under an encoded key, apart from
// every other resource.
func TestResourceNames(t *testing.T) {
	t.Parallel()
	tgt := open(t, modeOptions(ModeAtomic))
	ctx := context.Background()
	names := []string{"r0", "a b", "a/b", "a.b", "h.61", "ü", "*", ">"}
	for i, r := range names {
		out, err := tgt.Write(ctx, r, uint64(i+1), r)
		require.NoError(t, err)
		assert.Equal(t, histories.Accepted, out, r)
	}
	for i, r := range names {
		got, err := tgt.Read(ctx, r)
		require.NoError(t, err)
		assert.Equal(t, targets.Reading{Found: true, Value: r, Token: uint64(i + 1), HasToken: true}, got, r)
	}
}

// TestRaceInTheWindow holds token 5's write between its comparison and
// its write while token 7 is written: atomic's Update is refused for the
// moved revision, the write is decided again and rejected, and 7 stays;
// check-then-set's Put lands on top of 7 (the hazard fencecheck must
// find).
func TestRaceInTheWindow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode      Mode
		want      histories.Outcome
		wantToken uint64
	}{
		{ModeAtomic, histories.Rejected, 7},
		{ModeCheckThenSet, histories.Accepted, 5},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			t.Parallel()
			tgt := open(t, modeOptions(tc.mode))
			ctx := context.Background()
			for _, first := range []bool{true, false} { // Create's race, then Update's
				r := fmt.Sprintf("first=%v", first)
				if !first {
					_, err := tgt.Write(ctx, r, 1, "one")
					require.NoError(t, err)
				}
				tgt.SetWindow(func(ctx context.Context, _ string, token uint64) {
					if token == 5 {
						out, err := tgt.Write(ctx, r, 7, "seven")
						assert.NoError(t, err)
						assert.Equal(t, histories.Accepted, out)
					}
				})
				out, err := tgt.Write(ctx, r, 5, "five")
				tgt.SetWindow(nil)
				require.NoError(t, err)
				assert.Equal(t, tc.want, out, r)
				got, err := tgt.Read(ctx, r)
				require.NoError(t, err)
				assert.Equal(t, tc.wantToken, got.Token, r)
			}
		})
	}
}

// TestOpenRefuses: a spec or options that cannot work are refused
// before anything is created, and the error never shows the password.
func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	base := DefaultOptions()
	zero := base
	zero.Timeout = 0
	bad := base
	bad.Mode = "watch"
	for _, tc := range []struct {
		name, spec string
		o          Options
		want       string
	}{
		{"not nats", "redis://127.0.0.1:6379", base, "not a NATS target"},
		{"no timeout", "nats://127.0.0.1:4222", zero, "Timeout must be positive"},
		{"unknown mode", "nats://127.0.0.1:4222", bad, `unknown nats-mode "watch"`},
		{"parameters", "nats://127.0.0.1:4222?x=1", base, "no path or parameters"},
		{"embedded", "nats://embedded", base, "OpenPrivate"},
		{"nothing listens", "nats://user:s3cret@127.0.0.1:1", base, "open nats://user:xxxxx@127.0.0.1:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Open(context.Background(), tc.spec, tc.o)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "s3cret")
		})
	}
}

// TestOpenPrivateRefuses: the private server's spec takes only
// sync=always, and needs a command.
func TestOpenPrivateRefuses(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.Command = []string{"true"}
	for _, tc := range []struct {
		spec string
		o    Options
		want string
	}{
		{"nats://embedded?sync=sometimes", o, "the only setting is sync=always"},
		{"nats://embedded?x=1", o, "at most the parameter sync=always"},
		{"nats://127.0.0.1:4222", o, "not the private server"},
		{"nats://embedded", DefaultOptions(), "no command runs the private server"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			_, err := OpenPrivate(tc.spec, tc.o)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}
