package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNamingOfFixedResources: names as given win, a job names its own,
// numbered names are r0 … r<n-1>, and the zero Naming leaves the run to
// draw its own; Fixed says which of them are the same in every run.
func TestNamingOfFixedResources(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		naming  Naming
		want    []string
		fixed   bool
		wantErr string
	}{
		{"drawn by the run", Naming{}, nil, false, ""},
		{"given", Naming{Names: []string{"a", "b"}, Numbered: true}, []string{"a", "b"}, true, ""},
		{"a job's", Naming{Job: "j1", Numbered: true}, []string{"j1-r0", "j1-r1", "j1-r2"}, true, ""},
		{"numbered", Naming{Numbered: true}, []string{"r0", "r1", "r2"}, true, ""},
		{"both", Naming{Names: []string{"a"}, Job: "j1"}, nil, true, "give Names or Job, not both: each names the job's resources"},
		{"a bad job id", Naming{Job: "a b"}, nil, true, "does not make resource names"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.fixed, tc.naming.Fixed())
			names, err := tc.naming.ResourceNames(3)
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tc.want, names)
		})
	}
}
