package sqltarget

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
)

// killIdleDir, when set, makes TestMySQLDriverLogStaysOffStderr the child
// that provokes the driver's message, with its run directory there.
const killIdleDir = "SQLTARGET_TEST_KILL_IDLE_DIR"

// TestMySQLDriverLogStaysOffStderr has the server end the pool's idle
// connection (KILL from a second session), so that go-sql-driver/mysql
// finds it dead when the next read takes it and logs "closing bad idle
// connection". It runs that in a child test process, whose real stderr
// must not carry the message, while the run directory's sql.log does.
func TestMySQLDriverLogStaysOffStderr(t *testing.T) {
	spec, skip := testdb.MySQL().DSN()
	if skip != "" {
		t.Skip(skip)
	}
	if dir := os.Getenv(killIdleDir); dir != "" {
		killIdleConnection(t, spec, dir)
		return
	}
	t.Parallel()
	dir := schema.TempDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestMySQLDriverLogStaysOffStderr$", "-test.v")
	cmd.Env = append(os.Environ(), killIdleDir+"="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "child:\n%s%s", stdout.String(), stderr.String())
	require.Contains(t, stdout.String(), "--- PASS: TestMySQLDriverLogStaysOffStderr", "the child provoked the message")
	assert.NotContains(t, stderr.String()+stdout.String(), "closing bad idle connection", "the driver's message on the child's output")
	log, err := os.ReadFile(filepath.Join(dir, LogFile))
	require.NoError(t, err)
	assert.Contains(t, string(log), "closing bad idle connection")
}

// killIdleConnection opens a target, leaves one idle connection in its
// pool, has a second session KILL it, waits until the server has let it
// go, and reads again: the driver finds the connection dead and logs so.
func killIdleConnection(t *testing.T, spec, dir string) {
	ctx := context.Background()
	tgt := open(t, spec, DefaultOptions())
	if u, ok := any(tgt).(interface{ UseRunDir(string) }); ok {
		u.UseRunDir(dir)
	}
	tgt.db.SetMaxIdleConns(1) // one idle connection: the one to kill
	var id int64
	require.NoError(t, tgt.db.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id))
	other, err := Open(ctx, spec, DefaultOptions()) // the second session
	require.NoError(t, err)
	defer other.Close()
	side := other.db
	_, err = side.ExecContext(ctx, "KILL CONNECTION ?", id)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, side.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?", id).Scan(&n))
		return n == 0
	}, 10*time.Second, 5*time.Millisecond, "the server let connection %d go", id)

	_, err = tgt.Read(ctx, "r") // on a new connection, after the driver closed the dead one
	require.NoError(t, err)
}
