package redistarget

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

// correct are the ways of writing that must behave as a fenced register.
func correct(t *testing.T) map[string]Options {
	return map[string]Options{
		"atomic":         modeOptions(ModeAtomic),
		"watch":          modeOptions(ModeWatch),
		"check-then-set": modeOptions(ModeCheckThenSet), // correct without concurrency
		"fenced.lua":     scriptOptions(t, "fenced.lua"),
		"fenced.lua with read.lua": func() Options {
			o := scriptOptions(t, "fenced.lua")
			o.ReadScript = script(t, "read.lua")
			return o
		}(),
	}
}

type step struct {
	token uint64
	value string
	want  histories.Outcome
}

// TestWriteRead plays one sequence of writes on every correct way of
// writing: the first write creates the resource, a lower or equal token
// is rejected and leaves the stored value alone, a higher one replaces
// it.
func TestWriteRead(t *testing.T) {
	t.Parallel()
	steps := []step{{42, "a", histories.Accepted}, {41, "stale", histories.Rejected}, {42, "again", histories.Rejected}, {43, "b", histories.Accepted}}
	for name, o := range correct(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tgt := open(t, o)
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

// TestAcceptEqual: under accept-equal the built-in modes accept a repeat
// of the stored token, and still reject a lower one.
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

// boundaries are consecutive tokens that a comparison of doubles, of
// strings or of signed integers orders wrongly.
var boundaries = [][2]uint64{
	{9, 10}, {99, 100},
	{1 << 53, 1<<53 + 1},
	{1<<53 + 1, 1<<53 + 2},
	{math.MaxInt64, 1 << 63},
	{1 << 63, 1<<63 + 1},
	{math.MaxUint64 - 1, math.MaxUint64},
}

// TestBigTokens: every correct way of writing orders every pair as
// integers, up to 2^64-1, and reads the token back exactly; and the
// target declares that it stores every uint64.
func TestBigTokens(t *testing.T) {
	t.Parallel()
	for name, o := range correct(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tgt := open(t, o)
			assert.Equal(t, uint64(math.MaxUint64), targets.MaxToken(tgt))
			ctx := context.Background()
			for i, p := range boundaries {
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
		})
	}
}

// TestTonumberScriptIsWrongAbove2to53 shows the hazard the built-in
// script avoids: a user's script that compares with tonumber rejects
// 2^53+1 after 2^53.
func TestTonumberScriptIsWrongAbove2to53(t *testing.T) {
	t.Parallel()
	tgt := open(t, scriptOptions(t, "tonumber.lua"))
	ctx := context.Background()
	for _, s := range []step{{1 << 53, "lo", histories.Accepted}, {1<<53 + 1, "hi", histories.Rejected}} {
		out, err := tgt.Write(ctx, "r0", s.token, s.value)
		require.NoError(t, err)
		assert.Equal(t, s.want, out, "token %d", s.token)
	}
}

// TestWindow holds the write of token 5 between its check and its write,
// and there writes token 7: check-then-set then lays 5 over 7 (the race
// fencecheck must find); watch's EXEC is discarded, its second attempt
// rejects 5, and 7 stays; atomic has no window.
func TestWindow(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode   Mode
		opened bool
		out    histories.Outcome
		stored string
	}{
		{ModeCheckThenSet, true, histories.Accepted, "five"},
		{ModeWatch, true, histories.Rejected, "seven"},
		{ModeAtomic, false, histories.Accepted, "seven"},
	}
	for _, tc := range cases {
		t.Run(string(tc.mode), func(t *testing.T) {
			t.Parallel()
			tgt := open(t, modeOptions(tc.mode))
			ctx := context.Background()
			_, err := tgt.Write(ctx, "r0", 3, "three")
			require.NoError(t, err)
			opened := 0
			tgt.SetWindow(func(ctx context.Context, resource string, token uint64) {
				if token != 5 {
					return
				}
				opened++
				out, err := tgt.Write(ctx, resource, 7, "seven")
				require.NoError(t, err)
				require.Equal(t, histories.Accepted, out)
			})
			out, err := tgt.Write(ctx, "r0", 5, "five")
			require.NoError(t, err)
			if !tc.opened {
				// No window: write 7 now, after 5.
				_, err = tgt.Write(ctx, "r0", 7, "seven")
				require.NoError(t, err)
			}
			assert.Equal(t, tc.out, out)
			assert.Equal(t, map[bool]int{true: 1, false: 0}[tc.opened], opened, "the window opened once")
			r, err := tgt.Read(ctx, "r0")
			require.NoError(t, err)
			assert.Equal(t, tc.stored, r.Value)
		})
	}
}

// TestScriptReplies: a user's script's reply is read by the documented
// convention; any other reply, and an error reply, is an unknown outcome
// (not definitely not applied: the script ran).
func TestScriptReplies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		script string
		out    histories.Outcome
		err    string
	}{
		{"return 1", histories.Accepted, ""},
		{"return 0", histories.Rejected, ""},
		{"return 2", 0, "the script replied 2; want the integer 1 (accepted) or 0 (rejected)"},
		{"return 'OK'", 0, `the script replied "OK"`},
		{"return false", 0, "the script replied nil"},
		{"redis.call('HSET', KEYS[1], 'value', ARGV[2]); return redis.error_reply('half-way')", 0, "half-way"},
	}
	for _, tc := range cases {
		t.Run(tc.script, func(t *testing.T) {
			t.Parallel()
			o := DefaultOptions()
			o.Mode, o.Script = "", tc.script
			tgt := open(t, o)
			out, err := tgt.Write(context.Background(), "r0", 1, "v")
			assert.Equal(t, tc.out, out)
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
			assert.NotErrorIs(t, err, targets.ErrDefinitelyNotApplied)
		})
	}
}

// TestScriptArgs: the script is passed the documented keys and
// arguments: the resource's key under the run's prefix, the token in
// decimal, the value, the policy.
func TestScriptArgs(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.Mode, o.Script = "", "redis.call('RPUSH', KEYS[1] .. ':args', KEYS[1], ARGV[1], ARGV[2], ARGV[3]); return 1"
	tgt := open(t, o)
	_, err := tgt.Write(context.Background(), "r0", math.MaxUint64, "v")
	require.NoError(t, err)
	got, err := raw(t).LRange(context.Background(), tgt.Prefix()+"r0:args", 0, -1).Result()
	require.NoError(t, err)
	assert.Equal(t, []string{tgt.Prefix() + "r0", "18446744073709551615", "v", "strict"}, got)
	assert.Regexp(t, `^fencecheck:target:[0-9a-f]{12}:$`, tgt.Prefix())
}

// TestTeardownRemovesEveryKey: Teardown removes every key of the run,
// more than one SCAN batch of them, the ones a user's script names after
// KEYS[1] too, and no key of anyone else.
func TestTeardownRemovesEveryKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := DefaultOptions()
	o.Mode, o.Script = "", "redis.call('SET', KEYS[1] .. ':audit', ARGV[1])\n"+script(t, "fenced.lua")
	tgt, err := Open(ctx, spec(t), o)
	require.NoError(t, err)
	defer tgt.Close()
	c := raw(t)
	other := "fencecheck-test-other:" + tgt.Prefix()
	require.NoError(t, c.Set(ctx, other, "not ours", 0).Err())
	defer c.Del(ctx, other)
	for i := range 2*unlinkBatch + 7 {
		_, err := tgt.Write(ctx, fmt.Sprintf("r%d", i), 1, "v")
		require.NoError(t, err)
	}
	require.Len(t, keys(t, tgt), 2*(2*unlinkBatch+7))
	require.NoError(t, tgt.Teardown(ctx))
	assert.Empty(t, keys(t, tgt))
	n, err := c.Exists(ctx, other).Result()
	require.NoError(t, err)
	assert.Equal(t, int64(1), n, "another client's key survives")
}

// TestOpenErrors: what Open refuses, before or after connecting, names
// the target without its password.
func TestOpenErrors(t *testing.T) {
	t.Parallel()
	good := spec(t)
	cases := []struct {
		name string
		spec string
		o    func(*Options)
		err  string
	}{
		{"unknown mode", good, func(o *Options) { o.Mode = "careful" }, `unknown redis-mode "careful"`},
		{"mode and script", good, func(o *Options) { o.Script = "return 1" }, "exclude each other"},
		{"read script without a write script", good, func(o *Options) { o.ReadScript = "return nil" }, "a read script needs your own write script"},
		{"script that does not compile", good, func(o *Options) { o.Mode, o.Script = "", "if then" }, "load the write script into"},
		{"read script that does not compile", good, func(o *Options) { o.Mode, o.Script, o.ReadScript = "", "return 1", "return {" }, "load the read script into"},
		{"not a Redis spec", "mysql://root@127.0.0.1/x", nil, "not a Redis target"},
		{"unreachable, with a password", "redis://bob:s3cretpw@127.0.0.1:1/0", nil, "open redis://bob:xxxxx@127.0.0.1:1/0: dial tcp 127.0.0.1:1"},
		{"zero timeout", good, func(o *Options) { o.Timeout = 0 }, "Timeout must be positive"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := DefaultOptions()
			if tc.o != nil {
				tc.o(&o)
			}
			_, err := Open(context.Background(), tc.spec, o)
			require.ErrorContains(t, err, tc.err)
			assert.NotContains(t, err.Error(), "s3cretpw")
		})
	}
}

// TestClosedClientIsNotApplied: a write on a closed client never had a
// connection to be sent on.
func TestClosedClientIsNotApplied(t *testing.T) {
	t.Parallel()
	for _, m := range Modes() {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			tgt, err := Open(context.Background(), spec(t), modeOptions(m))
			require.NoError(t, err)
			require.NoError(t, tgt.Close())
			_, err = tgt.Write(context.Background(), "r0", 1, "v")
			assert.ErrorIs(t, err, targets.ErrDefinitelyNotApplied)
		})
	}
}

// TestTokenless: the built-in modes write without a token and keep the
// stored token, or store 0 in a new hash; the user's script cannot.
func TestTokenless(t *testing.T) {
	t.Parallel()
	tgt := open(t, modeOptions(ModeAtomic))
	ctx := context.Background()
	_, err := tgt.Write(ctx, "r0", 5, "fenced")
	require.NoError(t, err)
	w, err := targets.Tokenless(tgt)
	require.NoError(t, err)
	out, err := w.WriteWithoutToken(ctx, "r0", "plain")
	require.NoError(t, err)
	assert.Equal(t, histories.Accepted, out)
	r, err := tgt.Read(ctx, "r0")
	require.NoError(t, err)
	assert.Equal(t, targets.Reading{Found: true, Value: "plain", Token: 5, HasToken: true}, r)
	_, err = w.WriteWithoutToken(ctx, "r1", "new")
	require.NoError(t, err)
	r, err = tgt.Read(ctx, "r1")
	require.NoError(t, err)
	assert.Equal(t, targets.Reading{Found: true, Value: "new", Token: 0, HasToken: true}, r, "a new hash gets token 0")

	own := open(t, scriptOptions(t, "fenced.lua"))
	_, err = targets.Tokenless(own)
	assert.ErrorContains(t, err, "the user's own script")
}
