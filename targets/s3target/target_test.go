package s3target

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/unique"
	"github.com/fencecheck/fencecheck/targets"
)

type step struct {
	token uint64
	value string
	want  histories.Outcome
}

// play writes the steps in order and checks each outcome.
func play(t *testing.T, tgt *Target, resource string, steps []step) {
	t.Helper()
	for _, s := range steps {
		out, err := tgt.Write(context.Background(), resource, s.token, s.value)
		require.NoError(t, err)
		assert.Equal(t, s.want, out, "token %d", s.token)
	}
}

// TestWriteRead plays one sequence of writes on the correct modes: the
// first write creates the resource, a lower or equal token is rejected
// and leaves the stored value alone, a higher one replaces it; the
// largest uint64 is stored and read back exactly.
func TestWriteRead(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, s store) {
		for _, m := range []Mode{ModeCAS, ModeEpochKeys} {
			t.Run(string(m), func(t *testing.T) {
				t.Parallel()
				tgt := open(t, s, s.options(m))
				ctx := context.Background()
				r, err := tgt.Read(ctx, "r0")
				require.NoError(t, err)
				assert.Equal(t, targets.Reading{HasToken: true}, r, "never written")
				play(t, tgt, "r0", []step{{42, "a", histories.Accepted}, {41, "stale", histories.Rejected}, {42, "again", histories.Rejected}, {43, "b", histories.Accepted}})
				r, err = tgt.Read(ctx, "r0")
				require.NoError(t, err)
				assert.Equal(t, targets.Reading{Found: true, Value: "b", Token: 43, HasToken: true}, r)
				other, err := tgt.Read(ctx, "r1")
				require.NoError(t, err)
				assert.False(t, other.Found, "a token on one resource does not touch another")
				play(t, tgt, "r2", []step{{1<<64 - 2, "x", histories.Accepted}, {1<<64 - 1, "max\nwith a newline", histories.Accepted}, {9, "low", histories.Rejected}})
				r, err = tgt.Read(ctx, "r2")
				require.NoError(t, err)
				assert.Equal(t, targets.Reading{Found: true, Value: "max\nwith a newline", Token: 1<<64 - 1, HasToken: true}, r)
			})
		}
	})
}

// TestAcceptEqual: under accept-equal the correct modes accept a repeat
// of the current token, and still reject a lower one.
func TestAcceptEqual(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, s store) {
		for _, m := range []Mode{ModeCAS, ModeEpochKeys} {
			t.Run(string(m), func(t *testing.T) {
				t.Parallel()
				o := s.options(m)
				o.AcceptEqual = true
				tgt := open(t, s, o)
				play(t, tgt, "r0", []step{{42, "a", histories.Accepted}, {42, "again", histories.Accepted}, {41, "stale", histories.Rejected}})
				r, err := tgt.Read(context.Background(), "r0")
				require.NoError(t, err)
				assert.Equal(t, "again", r.Value)
			})
		}
	})
}

// TestBrokenModesAcceptOldTokens: etag-only and unconditional compare no
// token, so a lower token overwrites a higher one even without any
// concurrency: what the run finds.
func TestBrokenModesAcceptOldTokens(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, s store) {
		for _, m := range []Mode{ModeETagOnly, ModeUnconditional} {
			t.Run(string(m), func(t *testing.T) {
				t.Parallel()
				tgt := open(t, s, s.options(m))
				play(t, tgt, "r0", []step{{42, "a", histories.Accepted}, {41, "stale", histories.Accepted}})
				r, err := tgt.Read(context.Background(), "r0")
				require.NoError(t, err)
				assert.Equal(t, targets.Reading{Found: true, Value: "stale", Token: 41, HasToken: true}, r)
			})
		}
	})
}

// TestOldOwnerInTheWindow is the ABA trap, played by hand: an old owner
// (token 5) is held in the window while the new owner (token 7) writes.
// cas finds the ETag changed (412), reads again and rejects 5; epoch-keys
// creates key 5 below key 7, which reads never return; etag-only reads
// the new ETag after the window and overwrites 7 with a matching
// If-Match; unconditional overwrites it.
func TestOldOwnerInTheWindow(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode   Mode
		out    histories.Outcome
		stored string
	}{
		{ModeCAS, histories.Rejected, "seven"},
		{ModeEpochKeys, histories.Accepted, "seven"},
		{ModeETagOnly, histories.Accepted, "five"},
		{ModeUnconditional, histories.Accepted, "five"},
	}
	stores(t, func(t *testing.T, s store) {
		for _, tc := range cases {
			t.Run(string(tc.mode), func(t *testing.T) {
				t.Parallel()
				tgt := open(t, s, s.options(tc.mode))
				ctx := context.Background()
				play(t, tgt, "r0", []step{{3, "three", histories.Accepted}})
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
				assert.Equal(t, tc.out, out)
				assert.Equal(t, 1, opened, "the window opened once")
				r, err := tgt.Read(ctx, "r0")
				require.NoError(t, err)
				assert.Equal(t, tc.stored, r.Value)
			})
		}
	})
}

// TestRacingWritersHighestWins: writers with tokens 2…9 race on a
// resource holding token 1, all past their check before any PUT (the
// window holds each until all arrived); the correct modes store 9
// whatever the order, which needs the store to apply each precondition
// and its write as one step.
func TestRacingWritersHighestWins(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, s store) {
		for _, m := range []Mode{ModeCAS, ModeEpochKeys} {
			t.Run(string(m), func(t *testing.T) {
				t.Parallel()
				tgt := open(t, s, s.options(m))
				for round := range 3 {
					r := fmt.Sprintf("r%d", round)
					play(t, tgt, r, []step{{1, "base", histories.Accepted}})
					var arrived sync.WaitGroup
					arrived.Add(8)
					all := make(chan struct{})
					go func() { arrived.Wait(); close(all) }()
					var once sync.Map
					tgt.SetWindow(func(ctx context.Context, resource string, token uint64) {
						if _, again := once.LoadOrStore(token, true); again {
							return
						}
						arrived.Done()
						<-all
					})
					var wg sync.WaitGroup
					for tok := uint64(2); tok <= 9; tok++ {
						wg.Go(func() {
							_, err := tgt.Write(context.Background(), r, tok, fmt.Sprint("v", tok))
							assert.NoError(t, err)
						})
					}
					wg.Wait()
					got, err := tgt.Read(context.Background(), r)
					require.NoError(t, err)
					assert.Equal(t, targets.Reading{Found: true, Value: "v9", Token: 9, HasToken: true}, got, "round %d", round)
					tgt.SetWindow(nil)
				}
			})
		}
	})
}

// TestTeardownOfTheUsersBucket: in a bucket the user named, the run
// writes under its prefix and Teardown removes exactly that: another
// client's object and the bucket stay. More than one DeleteObjects batch
// is removed.
func TestTeardownOfTheUsersBucket(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, s store) {
		ctx := context.Background()
		c := s.client(t)
		bucket := "fencecheck-test-" + unique.Hex(6)
		_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket})
		require.NoError(t, err)
		other := "not-fencecheck/object"
		_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &other, Body: strings.NewReader("not ours")})
		require.NoError(t, err)
		defer func() {
			_, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: &other})
			assert.NoError(t, err)
			_, err = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &bucket})
			assert.NoError(t, err)
		}()
		tgt, err := Open(ctx, s.spec(bucket), s.options(ModeEpochKeys))
		require.NoError(t, err)
		defer tgt.Close()
		require.NoError(t, tgt.Setup(ctx))
		n := deleteBatch + 7
		if testing.Short() {
			n = 30
		}
		var wg sync.WaitGroup
		sem := make(chan struct{}, 8)
		for i := range n {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				_, err := tgt.Write(ctx, fmt.Sprint("r", i), 1, "v")
				assert.NoError(t, err)
			})
		}
		wg.Wait()
		assert.Len(t, keys(t, c, bucket, tgt.Prefix()), n, "one object per resource")
		require.NoError(t, tgt.Teardown(ctx))
		assert.Empty(t, keys(t, c, bucket, tgt.Prefix()))
		assert.Equal(t, []string{other}, keys(t, c, bucket, ""), "another client's object survives")
		_, err = c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &bucket})
		assert.NoError(t, err, "the user's bucket survives")
	})
}

// TestObjectLayout: what the modes leave in the store is the documented
// layout: one object per resource holding the 20-digit token and the
// value, or one per token under the resource's prefix.
func TestObjectLayout(t *testing.T) {
	t.Parallel()
	s := store{"embedded", embedded.Addr(), embedded.Credentials()}
	for _, m := range Modes() {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			tgt := open(t, s, s.options(m))
			play(t, tgt, "r0", []step{{7, "seven", histories.Accepted}, {42, "a", histories.Accepted}})
			want := []string{tgt.Prefix() + "r0"}
			if m == ModeEpochKeys {
				want = []string{tgt.Prefix() + "r0/00000000000000000007", tgt.Prefix() + "r0/00000000000000000042"}
			}
			got := keys(t, tgt.client, tgt.Bucket(), tgt.Prefix())
			assert.Equal(t, want, got)
			out, err := tgt.client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(tgt.Bucket()), Key: &got[len(got)-1]})
			require.NoError(t, err)
			defer out.Body.Close()
			b := new(strings.Builder)
			_, err = fmt.Fprint(b, readAll(t, out))
			require.NoError(t, err)
			assert.Equal(t, "00000000000000000042\na", b.String())
			assert.Regexp(t, `^fencecheck-[0-9a-f]{12}/$`, tgt.Prefix())
			assert.Regexp(t, `^fencecheck-[0-9a-f]{12}$`, tgt.Bucket())
		})
	}
}

// TestPutLog: with a run directory, every PUT is logged in the store's
// terms (object key, token, value, condition, the answer's ETag or
// status), so that the old owner's If-Match on the newer owner's ETag can
// be seen; without one nothing is written.
func TestPutLog(t *testing.T) {
	t.Parallel()
	s := store{"embedded", embedded.Addr(), embedded.Credentials()}
	tgt := open(t, s, s.options(ModeETagOnly))
	dir := t.TempDir()
	tgt.UseRunDir(dir)
	play(t, tgt, "r0", []step{{42, "new", histories.Accepted}, {41, "old", histories.Accepted}})
	b, err := os.ReadFile(filepath.Join(dir, LogFile))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 2)
	key := tgt.Bucket() + "/" + tgt.Prefix() + "r0"
	first := regexp.MustCompile(`PUT object key ` + regexp.QuoteMeta(key) + ` token 42 value "new" \(If-None-Match: \*\) → 200 ETag ("[0-9a-f]{32}")$`).FindStringSubmatch(lines[0])
	require.NotNil(t, first, lines[0])
	assert.Contains(t, lines[1], `token 41 value "old" (If-Match: `+first[1]+`) → 200 ETag "`, "the old owner named the newer owner's ETag")
}
