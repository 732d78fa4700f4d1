package verify

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// requireValidReport writes rep as fencecheck verify writes result.json
// and validates it against docs/schema/result.schema.json: every battery
// these tests run goes through it, so the schema is checked against the
// rows real batteries produce.
func requireValidReport(t *testing.T, rep Report) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(&buf, rep))
	require.NoError(t, schema.ValidateResult(&buf, "result.json"))
}
