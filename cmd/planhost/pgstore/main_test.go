package pgstore_test

import (
	"os"
	"testing"

	"github.com/dshgo/planmode/cmd/planhost/pgstore/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
