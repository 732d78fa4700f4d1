package receiver

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestServeRejectsANegativeGrace(t *testing.T) {
	t.Parallel()
	o := DefaultServerOptions()
	o.Listen, o.ShutdownGrace = "127.0.0.1:0", -time.Second
	err := Serve(context.Background(), http.NotFoundHandler(), o)
	require.ErrorContains(t, err, "ShutdownGrace -1s is negative")
}
