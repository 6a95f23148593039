package openaimodel

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
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
	var out []string
	add := func(v string) {
		if len(v) >= minSecretLen {
			out = append(out, v)
		}
	}
	add(c.APIKey)
	if i := strings.Index(c.BaseURL, "://"); i >= 0 {
		rest := c.BaseURL[i+3:]
		if at := strings.LastIndex(strings.SplitN(rest, "/", 2)[0], "@"); at >= 0 {
			info := rest[:at]
			add(info)
			user, pass, _ := strings.Cut(info, ":")
			add(user)
			add(pass)
			if d, err := url.PathUnescape(user); err == nil {
				add(d)
			}
			if d, err := url.PathUnescape(pass); err == nil {
				add(d)
			}
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j]) > len(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
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
	resp.Body = &limitedBody{rc: resp.Body, left: t.max, max: t.max, declared: resp.ContentLength}
	return resp, nil
}

// limitedBody reads at most max bytes and fails once more would come.
type limitedBody struct {
	rc       io.ReadCloser
	left     int64
	max      int64
	declared int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.declared > b.max {
		return 0, b.tooLarge()
	}
	if b.left <= 0 {
		// One byte more tells a body of exactly max bytes from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, b.tooLarge()
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) tooLarge() error {
	return fmt.Errorf("%w: more than %d bytes", ErrResponseTooLarge, b.max)
}

func (b *limitedBody) Close() error { return b.rc.Close() }
