package memory

import (
	"context"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

// OneStore is a fenced receiver that ignores the resource's name: every
// resource is the same cell, so one resource's token fences another's
// writes and a read returns whatever resource was written last. It is
// the scope bug the article warns of ("the monotonic sequence and the
// resource's comparison domain must describe the same ownership
// scope"), for testing that fencecheck names the root cause rather than
// the symptoms it causes on every resource.
type OneStore struct{ f Fenced }

// NewOneStore returns a receiver with a single cell for every resource.
func NewOneStore() *OneStore { return &OneStore{} }

// Write compares and writes, in one step, the one cell.
func (o *OneStore) Write(ctx context.Context, _ string, token uint64, value string) (histories.Outcome, error) {
	return o.f.Write(ctx, "", token, value)
}

// Read returns the one cell.
func (o *OneStore) Read(ctx context.Context, _ string) (targets.Reading, error) {
	return o.f.Read(ctx, "")
}

// Immediate says that the receiver answers without waiting.
func (o *OneStore) Immediate() bool { return true }

// CheckTokenless implements targets.TokenlessWriter.
func (o *OneStore) CheckTokenless() error { return nil }

// WriteWithoutToken implements targets.TokenlessWriter, on the one cell.
func (o *OneStore) WriteWithoutToken(ctx context.Context, _, value string) (histories.Outcome, error) {
	return o.f.WriteWithoutToken(ctx, "", value)
}
