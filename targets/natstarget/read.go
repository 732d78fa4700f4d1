package natstarget

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/targets"
)

// entry is what a read found at a key.
type entry struct {
	found    bool
	token    uint64
	value    string
	revision uint64 // the entry's; 0 when never written
}

// Read returns the stored value and token. A key never written reads as
// not found, with a token (the layout has tokens).
func (t *Target) Read(ctx context.Context, resource string) (targets.Reading, error) {
	e, err := t.get(ctx, resource)
	if err != nil {
		return targets.Reading{}, fmt.Errorf("read %s at %s: %w", resource, t.name, redact.Error(err, t.secrets))
	}
	if !e.found {
		return targets.Reading{HasToken: true}, nil
	}
	return targets.Reading{Found: true, Value: e.value, Token: e.token, HasToken: true}, nil
}

// get reads the resource's entry with its revision.
func (t *Target) get(ctx context.Context, resource string) (entry, error) {
	if t.kv == nil {
		return entry{}, errNoBucket
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	kve, err := t.kv.Get(ctx, keyOf(resource))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return entry{}, nil
	}
	if err != nil {
		return entry{}, err
	}
	token, value, err := decode(kve.Value())
	if err != nil {
		return entry{}, err
	}
	return entry{found: true, token: token, value: value, revision: kve.Revision()}, nil
}
