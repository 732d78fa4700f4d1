package targets_test

import (
	"context"
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// traceparent is the W3C header's version 00: lowercase hex, sampled.
var traceparent = regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-01$`)

func TestTraceparentIsVersion00LowercaseAndSampled(t *testing.T) {
	tc := targets.TraceContext{
		TraceID: [16]byte{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:  [8]byte{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
	}
	require.True(t, tc.Valid())
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", tc.TraceIDString())
	assert.Equal(t, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tc.Traceparent())
	assert.Regexp(t, traceparent, tc.Traceparent())

	// OpenTelemetry's reading of the header, as a traced receiver reads
	// it, finds the same ids, sampled.
	h := http.Header{}
	h.Set(targets.TraceparentHeader, tc.Traceparent())
	sc := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), propagation.HeaderCarrier(h)))
	require.True(t, sc.IsValid())
	assert.Equal(t, trace.TraceID(tc.TraceID), sc.TraceID())
	assert.Equal(t, trace.SpanID(tc.SpanID), sc.SpanID())
	assert.True(t, sc.IsSampled())
}

func TestAZeroIdIsNoTraceContext(t *testing.T) {
	for name, tc := range map[string]targets.TraceContext{
		"both zero":     {},
		"zero trace id": {SpanID: [8]byte{1}},
		"zero span id":  {TraceID: [16]byte{1}},
	} {
		t.Run(name, func(t *testing.T) {
			assert.False(t, tc.Valid())
			_, ok := targets.TraceFrom(targets.WithTrace(context.Background(), tc))
			assert.False(t, ok, "a target must not send an id the specification forbids")
		})
	}
}

func TestTheContextCarriesTheOperationsTrace(t *testing.T) {
	_, ok := targets.TraceFrom(context.Background())
	assert.False(t, ok, "a request outside an operation carries none")
	tc := targets.TraceContext{TraceID: [16]byte{15: 7}, SpanID: [8]byte{7: 9}}
	got, ok := targets.TraceFrom(targets.WithTrace(context.Background(), tc))
	require.True(t, ok)
	assert.Equal(t, tc, got)
}

// carrier is a target that says whether it carries traces.
type carrier struct {
	targets.Target
	carries bool
}

func (c carrier) CarriesTrace() bool { return c.carries }

func TestCarriesTrace(t *testing.T) {
	assert.False(t, targets.CarriesTrace(memory.NewFenced()), "memory targets carry no trace")
	assert.True(t, targets.CarriesTrace(carrier{memory.NewFenced(), true}))
	assert.False(t, targets.CarriesTrace(carrier{memory.NewFenced(), false}), "a carrier may decline, as configured")
}
