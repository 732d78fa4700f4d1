package sqltarget

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/targets/sqltarget/internal/placeholders"
)

// TestBuiltinStatementsTranslate checks every dialect's own statements
// against its own lexer.
func TestBuiltinStatementsTranslate(t *testing.T) {
	t.Parallel()
	for _, d := range []dialect{sqlite, postgres, mysqlDialect} {
		b := d.statements("t", false)
		for _, stmt := range []string{b.create, b.drop, b.atomic, b.read, b.checkRead, b.set} {
			_, err := placeholders.Translate(stmt, d.syntax)
			assert.NoError(t, err, "%s: %s", d.name, stmt)
		}
	}
}
