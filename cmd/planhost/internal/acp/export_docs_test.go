package acp

import (
	sdk "github.com/coder/acp-go-sdk"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
)

// PermissionOptions exposes the options a question is offered with over
// ACP, for the test that docs/acp.md lists them.
func PermissionOptions(cat *present.Catalog, req host.AskRequest) []sdk.PermissionOption {
	out, _ := permissionOptions(cat, req.Kind, cat.Menu(req, 0, false))
	return out
}
