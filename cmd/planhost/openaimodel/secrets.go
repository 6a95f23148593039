package openaimodel

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Redacted replaces a secret in texts the adapter returns.
const Redacted = "[redacted]"

// minSecretLen is the shortest key or password Redact replaces: a shorter
// one could not be told from ordinary text (and protects nothing).
const minSecretLen = 4

// urlUserinfo matches the user information of a URL in a text.
var urlUserinfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^/?#\s"'<>@]*@`)

// RedactURL returns rawURL with its user information (user name and
// password) replaced by [Redacted]. It works on text that does not parse as
// a URL too, and leaves text without user information unchanged.
func RedactURL(rawURL string) string {
	return urlUserinfo.ReplaceAllString(rawURL, "${1}"+Redacted+"@")
}

// Redact returns s with every secret of c removed: the API key, the base
// URL's user name and password (as written and decoded), and the user
// information of any URL. Keys and passwords shorter than four bytes are
// not searched for.
func (c Config) Redact(s string) string {
	s = RedactURL(s)
	for _, secret := range c.secrets() {
		s = strings.ReplaceAll(s, secret, Redacted)
	}
	return s
}

// secrets lists the values Redact removes, longest first so that a secret
// containing another is removed whole.
func (c Config) secrets() []string {
	out := []string{c.APIKey}
	if _, rest, ok := strings.Cut(c.BaseURL, "://"); ok {
		host, _, _ := strings.Cut(rest, "/")
		if at := strings.LastIndex(host, "@"); at >= 0 {
			user, pass, _ := strings.Cut(host[:at], ":")
			out = append(out, host[:at], user, pass)
			for _, v := range []string{user, pass} {
				if d, err := url.PathUnescape(v); err == nil {
					out = append(out, d)
				}
			}
		}
	}
	out = slices.DeleteFunc(out, func(v string) bool { return len(v) < minSecretLen })
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// redactedError is an error whose text has the configuration's secrets
// removed; it unwraps to the original, for errors.Is and errors.As.
type redactedError struct {
	text  string
	cause error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.cause }

// redactError returns err with c's secrets removed from its text (nil for
// nil).
func (c Config) redactError(err error) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	red := c.Redact(text)
	if red == text {
		return err
	}
	return &redactedError{text: red, cause: err}
}

// ErrResponseTooLarge means the endpoint's response body is over
// Config.MaxResponseBytes; the rest is not read.
var ErrResponseTooLarge = errors.New("response body over the size limit")

// limitTransport bounds every response body it passes on.
type limitTransport struct {
	next http.RoundTripper
	max  int64
}

func (t *limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	resp.Body = limitedBody{http.MaxBytesReader(nil, resp.Body, t.max), t.max, resp.ContentLength}
	return resp, nil
}

// limitedBody fails with ErrResponseTooLarge once more than max bytes
// come, or at once when more were declared.
type limitedBody struct {
	io.ReadCloser
	max, declared int64
}

func (b limitedBody) Read(p []byte) (int, error) {
	if b.declared > b.max {
		return 0, b.tooLarge()
	}
	n, err := b.ReadCloser.Read(p)
	if mbe := new(http.MaxBytesError); errors.As(err, &mbe) {
		err = b.tooLarge()
	}
	return n, err
}

func (b limitedBody) tooLarge() error {
	return fmt.Errorf("%w: more than %d bytes", ErrResponseTooLarge, b.max)
}
