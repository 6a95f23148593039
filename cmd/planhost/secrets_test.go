package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

const (
	secretKey  = "sk-live-SECRET1234567890"
	secretPass = "hunter22pass"
)

// TestHelpNeverShowsSecrets protects the API key and the base URL's
// password from -h and from a usage error: the flags show where the values
// come from, never the values; the request bounds show their defaults.
func TestHelpNeverShowsSecrets(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": secretKey, "OPENAI_BASE_URL": "https://user:" + secretPass + "@llm.example.com/v1", "HOME": t.TempDir()}
	for _, args := range [][]string{{"run", "-h"}, {"run", "-openai-kye", "x"}} {
		p, out, errOut, _ := testProgram(t, "")
		p.getenv = func(k string) string { return env[k] }
		p.main(args)
		all := out.String() + errOut.String()
		if strings.Contains(all, secretKey) || strings.Contains(all, secretPass) {
			t.Errorf("%v prints a secret:\n%s", args, all)
		}
		for _, want := range []string{"$OPENAI_API_KEY", "$OPENAI_BASE_URL", "-openai-timeout", "(default 10m0s)", "-openai-max-response", "(default 16777216)"} {
			if !strings.Contains(all, want) {
				t.Errorf("%v does not show %q:\n%s", args, want, all)
			}
		}
	}
}

// TestProviderErrorNeverShowsTheKey protects the API key from a provider
// that echoes it: the error is shown and logged (turn/end) without it.
func TestProviderErrorNeverShowsTheKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`"}}`)
	}))
	defer srv.Close()
	defer srv.Client().CloseIdleConnections()
	dir := newRunDir(t)
	env := map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_MODEL": "m", "OPENAI_API_KEY": secretKey}
	out, errOut := mustMainEnv(t, env, exitOK, "hello\n", openaiArgs(dir, filepath.Join("testdata", "run", "deploy.yaml"), "-openai-retries", "0")...)
	if !strings.Contains(out, "401 Unauthorized") {
		t.Fatalf("the error is not shown:\n%s", out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "sessions", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	log := readFile(t, files[0])
	for what, text := range map[string]string{"stdout": out, "stderr": errOut, "session log": string(log)} {
		if strings.Contains(text, secretKey) {
			t.Errorf("%s holds the key:\n%s", what, text)
		}
	}
	if !strings.Contains(string(log), "turn/end") || !strings.Contains(string(log), "[redacted]") {
		t.Errorf("turn/end does not record the redacted error:\n%s", log)
	}
}
