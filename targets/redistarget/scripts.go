package redistarget

import "github.com/redis/go-redis/v9"

// The key layout of the built-in modes, which a user's script may keep
// so that the built-in read serves it: one hash per resource, at the key
// <prefix><resource>, with the fields
//
//	value   the stored value
//	token   the token of the write that stored it, in decimal, without
//	        leading zeros
const (
	fieldValue = "value"
	fieldToken = "token"
)

// compareLua compares two tokens as Redis's Lua must: as decimal strings,
// shorter first, then digit by digit. Lua's numbers are doubles, exact
// only up to 2^53, so tonumber(a) > tonumber(b) says 2^53+1 is not above
// 2^53; and < on strings goes through the server's collation locale. A
// length-then-byte comparison is exact for every uint64 written without
// leading zeros, which is how fencecheck sends tokens and how the
// scripts store them.
const compareLua = `
local function cmp(a, b)
  if #a ~= #b then
    if #a < #b then return -1 end
    return 1
  end
  for i = 1, #a do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      if x < y then return -1 end
      return 1
    end
  end
  return 0
end
`

// atomicScript is ModeAtomic: the comparison and the write in one script,
// which Redis runs to its end before any other command. It writes nothing
// when it rejects, so a rejection leaves the hash as it was. ARGV[3] is
// the policy: under accept-equal a repeat of the stored token is
// accepted.
var atomicScript = redis.NewScript(compareLua + `
local cur = redis.call('HGET', KEYS[1], 'token')
if cur then
  local c = cmp(ARGV[1], cur)
  if c < 0 or (c == 0 and ARGV[3] ~= 'accept-equal') then return 0 end
end
redis.call('HSET', KEYS[1], 'value', ARGV[2], 'token', ARGV[1])
return 1
`)
