package s3target

import (
	"errors"
	"fmt"
	"net"
	"net/http"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"

	"github.com/fencecheck/fencecheck/targets"
)

// An error from a write is an unknown outcome: the PUT may have been
// applied even though no answer came back (a connection that broke after
// the request was sent, a timeout).
//
// A write is definitely not applied, and wraps
// targets.ErrDefinitelyNotApplied (recorded as fail), only when its PUT
// never reached the store, or the store said it applied nothing:
//   - the dial failed;
//   - the read before the PUT failed, so the PUT was never sent;
//   - every attempt was answered 412 Precondition Failed or 409
//     ConditionalRequestConflict (see cas.go).
func notApplied(err error) error {
	return fmt.Errorf("%w: %w", targets.ErrDefinitelyNotApplied, err)
}

// classify marks err as definitely not applied when the request never
// had a connection, and leaves it an unknown outcome otherwise.
func classify(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return notApplied(err)
	}
	return err
}

// status is the HTTP status of the store's answer, 0 without one.
func status(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// code is the S3 error code of the store's answer, "" without one.
func code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// isPrecondition: the store refused a conditional PUT, 412: the object
// is not as the condition said (its ETag changed, or it exists).
func isPrecondition(err error) bool {
	return code(err) == "PreconditionFailed" || status(err) == http.StatusPreconditionFailed
}

// isConflict: 409 ConditionalRequestConflict, S3's answer to a
// conditional PUT that raced another write to the same key. Nothing was
// applied; it is a retry, never a rejection.
func isConflict(err error) bool {
	return code(err) == "ConditionalRequestConflict" || (status(err) == http.StatusConflict && code(err) != "BucketAlreadyOwnedByYou" && code(err) != "BucketAlreadyExists" && code(err) != "BucketNotEmpty")
}

// isNotFound: the object (or bucket, for HeadBucket) does not exist.
func isNotFound(err error) bool {
	switch code(err) {
	case "NoSuchKey", "NotFound", "NoSuchBucket":
		return true
	}
	return status(err) == http.StatusNotFound
}
