-- A read script: nil when the resource was never written, else
-- {value, token}.
local v = redis.call('HMGET', KEYS[1], 'value', 'token')
if not v[1] then return nil end
return {v[1], v[2]}
