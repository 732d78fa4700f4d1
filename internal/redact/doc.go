// Package redact is fencecheck's one rule for secrets in what it prints
// and writes: a target spec is shown with its credentials replaced by
// xxxxx (Spec), and an error from a driver or an HTTP client, which is not
// written with printing in mind, has the same credentials scrubbed from
// its text (Secrets, Error).
//
// What counts as a credential, for every kind of target:
//
//   - the password of a URL's user information (the user name stays, as
//     url.URL.Redacted keeps it);
//   - the value of a query parameter whose name is credential-like (Name);
//   - the value of a header whose name is credential-like, and the parts
//     of an Authorization value: the credentials after the scheme and,
//     for Basic, the decoded user:password and the password.
//
// The rule sits below every stage, so that the targets, the run store's
// names and the front ends cannot disagree on it. docs/security.md says
// what it does not cover.
package redact

// Mask replaces a secret, as url.URL.Redacted writes it.
const Mask = "xxxxx"
