package redact

import "strings"

// credentialParts are the pieces of a name that mark a credential. A name
// is matched by containment, case-insensitively, so that password,
// sslpassword, passwd, api_key, apikey, X-Api-Key, access_token,
// Authorization, Proxy-Authorization, client_secret, X-Amz-Signature and
// Cookie all count. The rule errs towards hiding: a name such as sslkey
// (a file path) is hidden too, which costs a reader little.
var credentialParts = []string{"pass", "pwd", "secret", "token", "key", "auth", "cookie", "sig", "cred"}

// Name reports whether a query parameter or header name is credential-like:
// whether its value is a secret.
func Name(name string) bool {
	lower := strings.ToLower(name)
	for _, p := range credentialParts {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return false
}
