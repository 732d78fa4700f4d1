package private

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Settings reads the settings of a private server from the query of its
// spec ("appendonly=yes&appendfsync=always"): each name once, and only
// the names known, which the error of an unknown one lists for server
// ("a private redis-server"). Checking the values is the caller's.
func Settings(query, server string, known []string) (map[string]string, error) {
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("settings %q: %w", query, err)
	}
	var unknown []string
	out := make(map[string]string, len(q))
	for name, vs := range q {
		switch {
		case !slices.Contains(known, name):
			unknown = append(unknown, name)
		case len(vs) > 1:
			return nil, fmt.Errorf("setting %s given %d times", name, len(vs))
		default:
			out[name] = vs[0]
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, fmt.Errorf("unknown setting %s (%s takes %s)", strings.Join(unknown, ", "), server, strings.Join(known, ", "))
	}
	return out, nil
}
