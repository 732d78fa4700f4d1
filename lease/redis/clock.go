package redislease

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencecheck/fencecheck/lease/private"
)

// A private redis-server whose wall clock can jump: it runs under Debian's
// libfaketime (LD_PRELOAD), which reads the clock's offset from a file on
// every call the server makes for the time (FAKETIME_TIMESTAMP_FILE with
// FAKETIME_NO_CACHE), so that writing the file moves the server's clock at
// once. Redis expires keys by its wall clock (mstime), so a jump forward
// ends every lease key with less than the jump to run. The monotonic
// clock is left alone (DONT_FAKE_MONOTONIC), as an NTP step leaves it.
//
// Debian's redis-server allocates with jemalloc, which libfaketime cannot
// start beside (libfaketime issue 130: jemalloc asks for the time while
// libfaketime initializes). glibc's libc_malloc_debug.so.0 is preloaded
// ahead of both, so the server allocates with glibc's malloc: its INFO
// memory figures then describe jemalloc's idle arenas, not its use.

// libDirs are where the preloaded libraries are looked for.
var libDirs = []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"}

// preload finds libfaketime and glibc's malloc, in LD_PRELOAD's order.
func preload() (string, error) {
	find := func(names ...string) string {
		for _, d := range libDirs {
			for _, n := range names {
				if p := filepath.Join(d, n); fileExists(p) {
					return p
				}
			}
		}
		return ""
	}
	faketime := find("faketime/libfaketime.so.1", "libfaketime.so.1")
	if faketime == "" {
		return "", errors.New("libfaketime is not installed (Debian: the faketime package); a clock jump needs it")
	}
	malloc := find("libc_malloc_debug.so.0")
	if malloc == "" {
		return "", errors.New("glibc's libc_malloc_debug.so.0 (glibc 2.34 or later) is missing: redis-server's jemalloc cannot start beside libfaketime without it")
	}
	return malloc + ":" + faketime, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// ClockJumps implements lease.ClockIssuer: a private server can jump
// where redis-server and libfaketime are installed.
func (i *PrivateIssuer) ClockJumps() error {
	if _, err := exec.LookPath(ServerName); err != nil {
		return fmt.Errorf("private %s: %w", ServerName, err)
	}
	_, err := preload()
	return err
}

// fakeClock is the server's clock offset, in the file libfaketime reads.
type fakeClock struct {
	file string
	addr string // the server, to read its clock back

	mu     sync.Mutex
	offset time.Duration
}

// newFakeClock writes a zero offset into dir and returns the clock with
// the environment that makes a command run on it.
func newFakeClock(dir, addr string) (*fakeClock, []string, error) {
	libs, err := preload()
	if err != nil {
		return nil, nil, err
	}
	file, err := filepath.Abs(filepath.Join(dir, "faketime.rc"))
	if err != nil {
		return nil, nil, err
	}
	c := &fakeClock{file: file, addr: addr}
	if err := c.write(); err != nil {
		return nil, nil, err
	}
	return c, []string{"env", "LD_PRELOAD=" + libs, "FAKETIME_TIMESTAMP_FILE=" + file, "FAKETIME_NO_CACHE=1", "DONT_FAKE_MONOTONIC=1"}, nil
}

func (c *fakeClock) write() error {
	text := "+" + strconv.FormatFloat(c.offset.Seconds(), 'f', 3, 64) + "\n"
	tmp := c.file + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return fmt.Errorf("write the clock offset: %w", err)
	}
	// A rename, so that the server never reads a half-written offset.
	if err := os.Rename(tmp, c.file); err != nil {
		return fmt.Errorf("write the clock offset: %w", err)
	}
	return nil
}

// jump moves the clock forward by d and waits until the server's TIME
// reads it, bounded by ctx and a few seconds.
func (c *fakeClock) jump(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("a clock jump forward must be positive, not %v", d)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	client := redis.NewClient(&redis.Options{Addr: c.addr, MaxRetries: -1, PoolSize: 1})
	defer client.Close()
	before, err := client.Time(ctx).Result()
	if err != nil {
		return fmt.Errorf("read the server's clock before the jump: %w", err)
	}
	c.mu.Lock()
	c.offset += d
	err = c.write()
	c.mu.Unlock()
	if err != nil {
		return err
	}
	for {
		now, err := client.Time(ctx).Result()
		if err == nil && now.Sub(before) >= d {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("the server's clock did not read the jump of %v: %w", d, errors.Join(err, ctx.Err()))
		}
		time.Sleep(time.Millisecond) // the real server's clock, on the real clock
	}
}

// clockService is a private server's lease service whose clock can jump
// (lease.ClockJumper).
type clockService struct {
	*private.Service
	clock *fakeClock
}

// JumpClock implements lease.ClockJumper.
func (s *clockService) JumpClock(ctx context.Context, d time.Duration) error {
	if err := s.clock.jump(ctx, d); err != nil {
		return fmt.Errorf("jump %s's clock: %w", ServerName, err)
	}
	return nil
}
