// Package jsonbench holds the benchmark that compares JSON libraries on a
// session file: the file store's open against encoding/json,
// go-json-experiment (jsontext and json v2) and goccy/go-json reading the
// same lines, each next to os.ReadFile of the file. It lives in the
// planhost module so that the libraries it measures stay out of the root
// module.
package jsonbench
