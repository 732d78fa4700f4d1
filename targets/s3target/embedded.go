package s3target

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/fencecheck/fencecheck/internal/unique"
)

// Server is the embedded store: gofakes3 with its in-memory backend
// (s3mem) behind a real net/http listener on a free loopback port, so
// that the target's requests cross a real TCP connection, signed by the
// SDK as for any store, and the TCP fault proxy can stand in front of
// it. It needs no setup and leaves nothing behind: its objects live in
// the process's memory until Close.
//
// Conditional writes: gofakes3 (v1.2.0, the version in go.mod) reads
// If-Match and If-None-Match on PutObject, and s3mem checks them under
// the lock it writes under (gofakes3.CheckPutConditions inside
// Backend.PutObject), so a precondition and the write it guards are one
// step, as S3 promises: no middleware of fencecheck's is needed for it
// (TestRacingWritersHighestWins would find one missing). The ETag it compares
// is the MD5 of the content, in quotes, as S3's for a single-part PUT.
// What it does not model: it never answers 409 ConditionalRequestConflict
// (S3 may, for two conditional writes at once), and it does not check
// request signatures (they are sent all the same; MinIO checks them,
// see docs/object-stores.md).
type Server struct {
	ln    net.Listener
	srv   *http.Server
	creds Credentials
	done  chan error
}

// StartEmbedded starts an embedded store on 127.0.0.1:0. Close stops it.
func StartEmbedded() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the embedded S3 store: %w", err)
	}
	fake := gofakes3.New(s3mem.New(), gofakes3.WithLogger(gofakes3.DiscardLog()))
	s := &Server{
		ln:    ln,
		srv:   &http.Server{Handler: fake.Server(), ReadHeaderTimeout: 10 * time.Second},
		creds: Credentials{AccessKeyID: "fencecheck-" + unique.Hex(4), SecretAccessKey: unique.Hex(16)},
		done:  make(chan error, 1),
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the host:port the store listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Credentials are the store's access key: any key signs for it, this
// one is the process's own.
func (s *Server) Credentials() Credentials { return s.creds }

// Close stops the store and forgets its objects.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		// A request still held (a fault's) past the grace: cut it.
		err = s.srv.Close()
	}
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
