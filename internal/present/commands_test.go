package present_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/internal/e2etest"
	"github.com/dshgo/planmode/internal/present"
)

// TestAFailedCommandIsNamedOnce: a /plan that fails shows "/plan failed:"
// and the error without the command's name again, in both catalogs.
func TestAFailedCommandIsNamedOnce(t *testing.T) {
	h := e2etest.New(t)
	a := h.Agent()
	for _, args := range []string{"reopen 4", "reopen 1 2", "reopen"} {
		handled, reply, err := h.Runtime.Execute(context.Background(), a, "/plan "+args, nil)
		if !handled || err == nil {
			t.Fatalf("/plan %s = %v, %q, %v; want an error", args, handled, reply, err)
		}
		for _, cat := range []*present.Catalog{present.English, present.Chinese} {
			items := cat.CommandReply(planmode.CommandName, true, reply, err, planmode.State{}, true, 0)
			if len(items) != 1 || items[0].Kind != present.Error {
				t.Fatalf("items %+v", items)
			}
			text, prefix := items[0].Text, fmt.Sprintf(cat.Session.CommandFailed, planmode.CommandName, "")
			rest, ok := strings.CutPrefix(text, prefix)
			if !ok || strings.HasPrefix(rest, "/") || strings.Contains(rest, "/plan:") || !strings.HasPrefix(rest, "reopen") {
				t.Errorf("/plan %s shows %q; want %q once, then the error", args, text, prefix)
			}
		}
	}
}
