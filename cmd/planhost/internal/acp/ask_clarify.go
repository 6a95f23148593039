package acp

import (
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
)

// clarifyingRequest completes the permission request of a clarifying
// question: the options with their descriptions in the content, a note on
// several choices and on the user's own words (which request_permission
// cannot carry: the user skips and writes them in the next prompt), and a
// reject_once option that skips the question, added to choices as a
// skip.
func clarifyingRequest(cat *present.Catalog, q host.Question, content []sdk.ToolCallContent, options []sdk.PermissionOption,
	choices map[sdk.PermissionOptionId]choice) ([]sdk.ToolCallContent, []sdk.PermissionOption) {
	w := &cat.ACP
	var b strings.Builder
	for _, o := range q.Options {
		fmt.Fprintf(&b, w.Clarify, o.Label, o.Description)
	}
	if q.MultiSelect {
		b.WriteString(w.ClarifyOne)
	}
	b.WriteString(w.ClarifyOther)
	content = append(content, sdk.ToolContent(sdk.TextBlock(b.String())))
	id := unused(choices, skipOptionID)
	choices[id] = choice{skip: true}
	options = append(options, sdk.PermissionOption{OptionId: id, Name: w.Skip, Kind: sdk.PermissionOptionKindRejectOnce})
	return content, options
}
