-- A correct fencing check in Redis, as a service would write it.
-- KEYS[1]: the resource's hash, with the fields value and token
-- ARGV[1]: the fencing token, decimal, no leading zeros (up to 2^64-1)
-- ARGV[2]: the value
-- Returns 1 when the write is accepted, 0 when it is rejected.

-- above(a, b): a > b for decimal strings without leading zeros. Lua's
-- numbers are doubles, so tonumber would make 2^53+1 equal to 2^53.
local function above(a, b)
  if #a ~= #b then return #a > #b end
  for i = 1, #a do
    local x, y = a:byte(i), b:byte(i)
    if x ~= y then return x > y end
  end
  return false
end

local cur = redis.call('HGET', KEYS[1], 'token')
if cur and not above(ARGV[1], cur) then return 0 end
redis.call('HSET', KEYS[1], 'value', ARGV[2], 'token', ARGV[1])
return 1
