package zklease

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/lease/private"
	"github.com/fencecheck/fencecheck/targets/process"
)

// shared is the address of the private server the package's tests share
// (a JVM takes seconds to start), or "" with skip saying why there is
// none.
var shared, skip string

// tick is the shared server's tick: its shortest session is two.
const tick = 50 * time.Millisecond

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	java, err := FindJava()
	if err != nil {
		skip = fmt.Sprintf("ZooKeeper tests skipped: %v", err)
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "fencecheck-zk-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	child, port, err := private.StartOnFreePort(context.Background(), func(port int) (*process.Child, error) {
		conf, err := Write(dir, Config{Port: port, DataDir: filepath.Join(dir, "data"), Tick: tick})
		if err != nil {
			return nil, err
		}
		c := process.NewChild(java.Cmdline(conf), fmt.Sprintf("127.0.0.1:%d", port), process.Ready(Ready(fmt.Sprintf("127.0.0.1:%d", port))))
		c.StartTimeout = 2 * time.Minute
		c.SetLogFile(filepath.Join(dir, "zookeeper.log"))
		return c, nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the tests' ZooKeeper server:", err)
		return 1
	}
	defer func() { _ = child.Stop(5 * time.Second) }()
	shared = fmt.Sprintf("127.0.0.1:%d", port)
	code := m.Run()
	if code == 0 {
		code = leftBehind()
	}
	return code
}

// leftBehind fails the package when a test left a root of its own on
// the server: every store removes its root when it closes.
func leftBehind() int {
	conn, _, err := zk.Connect([]string{shared}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer conn.Close()
	children, _, err := conn.Children("/")
	if err != nil {
		fmt.Fprintln(os.Stderr, "list the server's root:", err)
		return 1
	}
	for _, c := range children {
		if "/"+c != "/zookeeper" {
			fmt.Fprintf(os.Stderr, "a test left /%s behind on the server\n", c)
			return 1
		}
	}
	return 0
}

// connect opens a store on the shared server, closed when the test ends;
// Close must remove the store's root.
func connect(t *testing.T) *Store {
	t.Helper()
	if shared == "" {
		t.Skip(skip)
	}
	s, err := Connect(context.Background(), "test "+shared, []string{shared})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return s
}

// TestGrantEndRenew: a grant is refused while a lease is current; the
// token is the lock node's creation zxid and grows; only the lease's own
// token renews or ends it; after End the next grant has a higher token.
func TestGrantEndRenew(t *testing.T) {
	t.Parallel()
	s := connect(t)
	ctx := context.Background()
	ttl := time.Second
	t1, ok, err := s.Grant(ctx, "r", 0, ttl)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Positive(t, t1)
	_, ok, err = s.Grant(ctx, "r", 1, ttl)
	require.NoError(t, err)
	assert.False(t, ok, "granted while held")
	left, err := s.Left(ctx, "r", t1)
	require.NoError(t, err)
	assert.Positive(t, left)
	ok, err = s.Renew(ctx, "r", t1, ttl)
	require.NoError(t, err)
	assert.True(t, ok)
	for _, wrong := range []uint64{t1 - 1, t1 + 1} {
		ok, err = s.End(ctx, "r", wrong)
		require.NoError(t, err)
		assert.False(t, ok, "ended by token %d", wrong)
	}
	ok, err = s.End(ctx, "r", t1)
	require.NoError(t, err)
	assert.True(t, ok)
	left, err = s.Left(ctx, "r", t1)
	require.NoError(t, err)
	assert.Zero(t, left)
	t2, ok, err := s.Grant(ctx, "r", 1, ttl)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Greater(t, t2, t1)
	// Another resource, with a name that is not a znode name, has locks
	// of its own.
	t3, ok, err := s.Grant(ctx, "a/b c", 0, ttl)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Greater(t, t3, t2)
}

// TestSuspendedSessionExpires: a lease whose holder stops answering ends
// when the server expires its session, and the lock goes to the next
// grant with a higher token; what the service waits for when a holder
// pauses.
func TestSuspendedSessionExpires(t *testing.T) {
	t.Parallel()
	s := connect(t)
	ctx := context.Background()
	t1, ok, err := s.Grant(ctx, "r", 0, 2*tick)
	require.NoError(t, err)
	require.True(t, ok)
	timeout := s.Suspend("r", t1)
	assert.GreaterOrEqual(t, timeout, 2*tick, "the server grants no session shorter than two ticks")
	// The bound is generous: the server expires the session at its own
	// pace, a tick after its timeout on an idle machine.
	require.Eventually(t, func() bool {
		left, err := s.Left(ctx, "r", t1)
		return err == nil && left == 0
	}, time.Minute, 10*time.Millisecond, "the suspended lease's node is still there")
	t2, ok, err := s.Grant(ctx, "r", 1, time.Second)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Greater(t, t2, t1)
}

// TestParentRecreationRestartsSequence: the sequence number ZooKeeper
// appends to a lock node is a counter of the lock parent, which starts
// again when the parent is deleted and created again; the zxid, which
// the tokens are, goes on growing. A token taken from the sequence would
// go back.
func TestParentRecreationRestartsSequence(t *testing.T) {
	t.Parallel()
	s := connect(t)
	ctx := context.Background()
	grant := func() (uint64, int32) {
		tok, ok, err := s.Grant(ctx, "r", 0, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		seq, ok := s.Sequence("r", tok)
		require.True(t, ok)
		ended, err := s.End(ctx, "r", tok)
		require.NoError(t, err)
		require.True(t, ended)
		return tok, seq
	}
	var tokens []uint64
	var seqs []int32
	for range 3 {
		tok, seq := grant()
		tokens, seqs = append(tokens, tok), append(seqs, seq)
	}
	require.NoError(t, s.RecreateParent(ctx, "r"))
	tok, seq := grant()
	t.Logf("sequences %v, then %d after the parent was recreated; zxid tokens %v, then %d", seqs, seq, tokens, tok)
	// A create the client retried after a lost answer takes a number
	// too: the numbers are compared, not spelled out.
	assert.Less(t, seq, seqs[len(seqs)-1], "the sequence did not start again")
	assert.Greater(t, tok, tokens[len(tokens)-1], "the zxid went back")
}

// TestNames: a lock node's sequence is read from its name, protected or
// not, and the lowest holds the lock.
func TestNames(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]int32{
		"lock-0000000007": 7,
		"_c_0123456789abcdef0123456789abcdef-lock-0000000012": 12,
		"lock--2147483648": -2147483648,
	} {
		got, ok := sequence(name)
		assert.True(t, ok, name)
		assert.Equal(t, want, got, name)
	}
	for _, name := range []string{"lock-", "other", "lock-x1", "lock-99999999999"} {
		_, ok := sequence(name)
		assert.False(t, ok, name)
	}
	assert.Equal(t, "_c_b-lock-0000000002", lowest([]string{"_c_a-lock-0000000010", "_c_b-lock-0000000002", "x"}))
	assert.Empty(t, lowest([]string{"x"}))
	assert.Equal(t, "r", nodeName("r"))
	assert.Equal(t, "h.612f62", nodeName("a/b"))
}

// FuzzSequence: any node name is read without a panic, and a sequence
// read back from the name ZooKeeper would write for it.
func FuzzSequence(f *testing.F) {
	f.Add("lock-0000000001")
	f.Add("_c_x-lock--0000000001")
	f.Fuzz(func(t *testing.T, name string) {
		if n, ok := sequence(name); ok {
			if _, ok := sequence(fmt.Sprintf("lock-%010d", n)); !ok {
				t.Fatalf("%q: sequence %d not read back", name, n)
			}
		}
	})
}
