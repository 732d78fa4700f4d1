package proxy

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDescribeIsWhatTheProxyReads: the headers Describe sets are the ones
// the proxy reads a request's operation, resource and token from, and
// removes before it forwards; a read carries no token.
func TestDescribeIsWhatTheProxyReads(t *testing.T) {
	for _, tc := range []struct {
		name     string
		op       string
		resource string
		token    uint64
		want     Request
	}{
		{"write", OpWrite, "r1", 42, Request{Op: OpWrite, Resource: "r1", Token: 42}},
		{"write of token 0", OpWrite, "r1", 0, Request{Op: OpWrite, Resource: "r1", Token: 0}},
		{"read", OpRead, "r2", 42, Request{Op: OpRead, Resource: "r2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hr := httptest.NewRequest(http.MethodPut, "/resources/"+tc.resource, bytes.NewReader([]byte("v")))
			hr.Header.Set("Fencing-Token", "7")
			Describe(hr.Header, tc.op, tc.resource, tc.token)
			if tc.op == OpRead {
				assert.Empty(t, hr.Header.Get(HeaderToken), "a read has no token to describe")
			}
			req, err := (&Proxy{}).read(hr)
			require.NoError(t, err)
			assert.Equal(t, tc.want.Op, req.Op)
			assert.Equal(t, tc.want.Resource, req.Resource)
			assert.Equal(t, tc.want.Token, req.Token)
			for _, k := range []string{HeaderOp, HeaderResource, HeaderToken} {
				assert.Empty(t, req.Header.Get(k), "%s is forwarded to the receiver", k)
			}
			assert.Equal(t, "7", req.Header.Get("Fencing-Token"), "the receiver's own headers are forwarded")
			assert.Equal(t, []byte("v"), req.Body)
		})
	}
}

// TestUndescribedRequestsMatchNoOperation: a request without the headers
// (a client that does not call Describe) reaches the proxy with no
// operation, so selectors that pick writes or reads never pick it.
func TestUndescribedRequestsMatchNoOperation(t *testing.T) {
	hr := httptest.NewRequest(http.MethodPut, "/resources/r", nil)
	req, err := (&Proxy{}).read(hr)
	require.NoError(t, err)
	assert.Empty(t, req.Op)
	assert.False(t, req.IsWrite())
	// Resource "" and token 0 are what an undescribed request carries, so
	// only its missing operation keeps this selector from picking it.
	assert.False(t, WriteOf("", 0)(req))
}
