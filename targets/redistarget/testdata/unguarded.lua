-- Broken: no comparison at all. Every write is accepted, the stale one
-- that arrives late too.
redis.call('HSET', KEYS[1], 'value', ARGV[2], 'token', ARGV[1])
return 1
