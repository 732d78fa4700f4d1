package sqltarget

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/targets"
)

// Read runs the read statement. It returns the value and, if it has a
// second column, the token; or no row. A row whose value is NULL counts as
// never written, so that a set-up may create the rows an UPDATE-only write
// needs (with token 0 and no value).
func (t *Target) Read(ctx context.Context, resource string) (targets.Reading, error) {
	r, err := t.readOnce(ctx, resource)
	if err != nil {
		return r, fmt.Errorf("read %s at %s: %w", resource, t.name, redact.Error(err, t.secrets))
	}
	return r, nil
}

func (t *Target) readOnce(ctx context.Context, resource string) (targets.Reading, error) {
	sctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	rows, err := t.db.QueryContext(sctx, t.traced(ctx, t.read).Text, args{resource: resource}.bind(t.read)...)
	if err != nil {
		return targets.Reading{}, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return targets.Reading{}, err
	}
	if len(cols) < 1 || len(cols) > 2 {
		return targets.Reading{}, fmt.Errorf("the read returns %d columns; want value, or value and token", len(cols))
	}
	if !rows.Next() {
		return targets.Reading{HasToken: len(cols) == 2}, rows.Err()
	}
	var value sql.NullString
	var token sql.NullInt64
	dest := []any{&value, &token}[:len(cols)]
	if err := rows.Scan(dest...); err != nil {
		return targets.Reading{}, err
	}
	if rows.Next() {
		return targets.Reading{}, fmt.Errorf("the read returned more than one row for %s", resource)
	}
	if err := rows.Err(); err != nil {
		return targets.Reading{}, err
	}
	if token.Int64 < 0 {
		return targets.Reading{}, fmt.Errorf("the read returned the negative token %d", token.Int64)
	}
	return targets.Reading{Found: value.Valid, Value: value.String, Token: uint64(token.Int64), HasToken: token.Valid}, nil
}
