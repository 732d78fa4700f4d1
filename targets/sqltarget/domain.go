package sqltarget

import "github.com/fencecheck/fencecheck/targets"

// MaxToken implements targets.TokenDomain: 2^63-1, in every mode. The
// built-in modes keep the token in a BIGINT column (PostgreSQL, MySQL and
// MariaDB) or an INTEGER one (SQLite, a signed 64-bit integer), none of
// which stores 2^63. The user's own statements may keep it in any column,
// which fencecheck cannot see; but the driver binds :token as a signed
// 64-bit integer, so no larger token reaches them either. A column that
// stores less (MySQL's INT, 2^31-1) is the user's to declare with
// --max-token.
func (t *Target) MaxToken() uint64 { return targets.MaxToken63 }

var _ targets.TokenDomain = (*Target)(nil)
