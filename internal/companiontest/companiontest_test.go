package companiontest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/dshgo/planmode/internal/companiontest"
)

func TestConfigFixturesRunsEachFileAgainstItsExpectation(t *testing.T) {
	var seen []string
	companiontest.ConfigFixtures(t, "testdata/config/*.yaml", func(give []byte) (string, error) {
		seen = append(seen, string(give))
		if strings.Contains(string(give), "bad") {
			return "", errors.New("x: bad value")
		}
		return "ok x=3", nil
	})
	if len(seen) != 2 {
		t.Errorf("load ran %d times, want once per fixture (2)", len(seen))
	}
}

func TestGoldenMatchesTheFile(t *testing.T) {
	companiontest.Golden(t, false, "./internal/companiontest", "hello.txt", "hello\n")
}
