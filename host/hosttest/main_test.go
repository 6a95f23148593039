package hosttest_test

import (
	"testing"

	"go.uber.org/goleak"
)

// The suites' own tests run hosts whose agents have goroutines.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
