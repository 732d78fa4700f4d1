package s3target

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/internal/unique"
)

// Embedded is the host of a spec that asks for the embedded store:
// s3://embedded/BUCKET.
const Embedded = "embedded"

// Schemes lists the target spec schemes Open accepts.
func Schemes() []string { return []string{"s3"} }

// IsSpec reports whether spec names an S3 target.
func IsSpec(spec string) bool { return strings.HasPrefix(spec, "s3://") }

// IsEmbedded reports whether spec names the embedded store.
func IsEmbedded(spec string) bool {
	l, err := parseSpec(spec)
	return err == nil && l.embedded
}

// location is what a spec names.
type location struct {
	embedded bool
	host     string // host:port of a store the user runs
	bucket   string // "": a bucket of the run's own
	region   string // "": the default
	tls      bool   // https rather than http
}

// bucketName is what S3 accepts as a bucket name in path-style
// addressing (3 to 63 lower-case letters, digits, dots and hyphens,
// starting and ending with a letter or digit).
var bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

// embeddedLabel is what the embedded store's spec may name: the bucket
// is run-unique, the label followed by -<12 hex digits>, which makes a
// valid bucket name of any label (s3://embedded/fc).
var embeddedLabel = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,49}$`)

// parseSpec reads s3://HOST:PORT[/BUCKET][?region=R&tls=true] and
// s3://embedded[/BUCKET]. Its errors quote the spec redacted.
func parseSpec(spec string) (location, error) {
	var l location
	name := redact.Spec(spec)
	if !IsSpec(spec) {
		return l, fmt.Errorf("%s: not an S3 target (want s3://HOST:PORT/BUCKET or s3://embedded/BUCKET)", name)
	}
	u, err := url.Parse(spec)
	if err != nil {
		return l, fmt.Errorf("%s: not a URL", name)
	}
	if u.User != nil {
		return l, fmt.Errorf("%s: credentials do not go in the spec; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or use a shared credentials file", name)
	}
	if u.Fragment != "" || u.Opaque != "" {
		return l, fmt.Errorf("%s: not of the form s3://HOST:PORT/BUCKET", name)
	}
	l.bucket = strings.TrimSuffix(strings.TrimPrefix(u.Path, "/"), "/")
	switch {
	case u.Host == Embedded && l.bucket != "" && !embeddedLabel.MatchString(l.bucket):
		return l, fmt.Errorf("%s: %q is not a bucket label (1 to 50 lower-case letters, digits and hyphens)", name, l.bucket)
	case u.Host != Embedded && l.bucket != "" && !bucketName.MatchString(l.bucket):
		return l, fmt.Errorf("%s: %q is not a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)", name, l.bucket)
	}
	for k, v := range u.Query() {
		switch {
		case k == "region" && len(v) == 1 && v[0] != "":
			l.region = v[0]
		case k == "tls" && len(v) == 1 && (v[0] == "true" || v[0] == "false"):
			l.tls = v[0] == "true"
		default:
			return l, fmt.Errorf("%s: unknown or repeated parameter %q (want region=REGION, tls=true)", name, k)
		}
	}
	if u.Host == Embedded {
		if l.region != "" || l.tls {
			return l, fmt.Errorf("%s: the embedded store takes no parameters", name)
		}
		l.embedded = true
		return l, nil
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil || host == "" || port == "" {
		return l, fmt.Errorf("%s: names no host:port (or embedded)", name)
	}
	l.host = u.Host
	return l, nil
}

// endpoint is the store's base URL.
func (l location) endpoint() string {
	if l.tls {
		return "https://" + l.host
	}
	return "http://" + l.host
}

// CheckSpec reports what is wrong with spec without connecting, so that
// a bad spec is reported before a run starts.
func CheckSpec(spec string) error {
	_, err := parseSpec(spec)
	return err
}

// Check reports what is wrong with o.
func (o Options) Check() error { return o.validate() }

// Direct is the spec of the embedded store srv with spec's bucket: what
// reaches it over TCP, for a caller that starts the store itself (to put
// the TCP fault proxy in front of it).
func Direct(spec string, srv *Server) (string, error) {
	l, err := parseSpec(spec)
	if err != nil {
		return "", err
	}
	if !l.embedded {
		return "", fmt.Errorf("%s: not the embedded store", redact.Spec(spec))
	}
	return "s3://" + srv.Addr() + "/" + l.runBucket(), nil
}

// runBucket is the embedded store's bucket: run-unique, named after the
// spec's label.
func (l location) runBucket() string {
	if l.bucket == "" {
		return ""
	}
	return l.bucket + "-" + unique.Hex(6)
}
