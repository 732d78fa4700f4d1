package s3target

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/targets"
)

// Read returns the stored value and token: the object's (cas, etag-only,
// unconditional), or the highest epoch key's (epoch-keys). A resource
// never written is read as not found, with a token (every mode stores
// one).
func (t *Target) Read(ctx context.Context, resource string) (targets.Reading, error) {
	obj, err := t.current(ctx, resource)
	if err != nil {
		return targets.Reading{}, fmt.Errorf("read %s at %s: %w", resource, t.name, redact.Error(err, t.secrets))
	}
	if !obj.found {
		return targets.Reading{HasToken: true}, nil
	}
	return targets.Reading{Found: true, Value: obj.value, Token: obj.token, HasToken: true}, nil
}

// current is the object that holds the resource's value.
func (t *Target) current(ctx context.Context, resource string) (object, error) {
	if t.mode != ModeEpochKeys {
		return t.get(ctx, t.key(resource))
	}
	dir := t.key(resource) + "/"
	top, found, err := t.top(ctx, resource, dir)
	if err != nil || !found {
		return object{}, err
	}
	key := epochKey(dir, top)
	obj, err := t.get(ctx, key)
	switch {
	case err != nil:
		return object{}, err
	case !obj.found:
		return object{}, fmt.Errorf("object key %s was listed and is gone: only fencecheck's tear-down removes one", key)
	case obj.token != top:
		return object{}, fmt.Errorf("object key %s, ETag %s, holds token %d", key, obj.etag, obj.token)
	}
	return obj, nil
}
