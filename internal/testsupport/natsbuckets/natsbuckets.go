// Package natsbuckets keeps the promise of the NATS tests to the shared
// server on 127.0.0.1:4222: every KV bucket a test package creates there
// is gone when its tests end. A package adds each bucket it creates to a
// Set, and its TestMain returns Set.Main's code, which fails the package
// when one is left.
package natsbuckets

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
)

// Set is the buckets a test package created on the shared server.
type Set struct {
	mu    sync.Mutex
	names []string
}

// Add records a bucket the tests created.
func (s *Set) Add(bucket string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.names = append(s.names, bucket)
}

// Main runs the tests with m and returns the package's exit code: 1 when
// they passed but left one of the Set's buckets on the shared server. A
// test binary run as a helper process (helperEnv set) checks nothing.
func (s *Set) Main(m interface{ Run() int }, helperEnv string) int {
	code := m.Run()
	if os.Getenv(helperEnv) == "" && code == 0 {
		if left := s.LeftBehind(); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "buckets left behind on the shared NATS server: %v\n", left)
			code = 1
		}
	}
	return code
}

// LeftBehind lists the Set's buckets the shared server still has, by
// their streams (KV_<bucket>).
func (s *Set) LeftBehind() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	url, skip := testdb.NATS().DSN()
	if skip != "" || len(s.names) == 0 {
		return nil
	}
	have, err := buckets(url)
	if err != nil {
		return []string{"cannot list: " + err.Error()}
	}
	var left []string
	for _, b := range s.names {
		if slices.Contains(have, b) {
			left = append(left, b)
		}
	}
	return left
}

// buckets lists the KV buckets on the server at url, from its stream
// names.
func buckets(url string) ([]string, error) {
	nc, err := nats.Connect(url, nats.Timeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	lister := js.StreamNames(ctx)
	var names []string
	for n := range lister.Name() {
		if b, ok := strings.CutPrefix(n, "KV_"); ok {
			names = append(names, b)
		}
	}
	return names, lister.Err()
}
