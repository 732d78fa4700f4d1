package sqltarget

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

// TestWriteWithoutToken: in both built-in modes, on every engine, a write
// without a token is stored whatever the row's token (the fence cannot
// see it): after token 42 was accepted, a tokenless write replaces the
// value and the row keeps 42; a first tokenless write creates the row.
func TestWriteWithoutToken(t *testing.T) {
	t.Parallel()
	for _, e := range engines {
		for _, m := range []Mode{ModeAtomic, ModeCheckThenSet} {
			t.Run(e.name+"/"+string(m), func(t *testing.T) {
				t.Parallel()
				tgt := open(t, e.spec(t), modeOptions(m))
				w, err := targets.Tokenless(tgt)
				require.NoError(t, err)
				ctx := context.Background()
				out, err := tgt.Write(ctx, "r", 42, "new-result")
				require.NoError(t, err)
				require.Equal(t, histories.Accepted, out)
				out, err = w.WriteWithoutToken(ctx, "r", "old-result")
				require.NoError(t, err)
				assert.Equal(t, histories.Accepted, out)
				got, err := tgt.Read(ctx, "r")
				require.NoError(t, err)
				assert.Equal(t, targets.Reading{Found: true, Value: "old-result", Token: 42, HasToken: true}, got)
				out, err = w.WriteWithoutToken(ctx, "fresh", "v")
				require.NoError(t, err)
				assert.Equal(t, histories.Accepted, out)
				got, err = tgt.Read(ctx, "fresh")
				require.NoError(t, err)
				assert.Equal(t, "v", got.Value)
			})
		}
	}
}

// TestOwnStatementsCannotWriteWithoutToken: the user's own statement is
// written around :token; the target says so before a run.
func TestOwnStatementsCannotWriteWithoutToken(t *testing.T) {
	t.Parallel()
	tgt := open(t, engine{name: "sqlite"}.spec(t), ownOptions(Statements{
		Setup: []string{"CREATE TABLE own (resource TEXT PRIMARY KEY, token INTEGER, value TEXT)"},
		Write: []string{"INSERT INTO own VALUES (:resource, :token, :value) ON CONFLICT (resource) DO UPDATE SET token = excluded.token, value = excluded.value WHERE excluded.token > own.token"},
		Read:  "SELECT value, token FROM own WHERE resource = :resource",
	}))
	_, err := targets.Tokenless(tgt)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "built-in mode")
}
