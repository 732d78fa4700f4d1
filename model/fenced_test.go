package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDescriptionsAreEscapedWhereThePageUsesHTML(t *testing.T) {
	t.Parallel()
	got := describeOperation(Input{Write: true, Token: 1, Value: "<script>"}, Output{Status: acc})
	assert.Equal(t, `write(1, "<script>") → accepted`, got)
	assert.Contains(t, describeState(State{Written: true, Value: "a&b", Token: 3}), "a&amp;b")
	assert.NotContains(t, describeMetadata(Meta{Resource: "<b>"}), "<b>")
	assert.Equal(t, "never written", describeState(State{}))
}
