package acp

import (
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/dshgo/planmode/host"
)

// clarifyingRequest completes the permission request of a clarifying
// question: the options with their descriptions in the content, a note on
// several choices and on the user's own words (which request_permission
// cannot carry: the user skips and writes them in the next prompt), and a
// reject_once option that skips the question, added to choices as a
// skip.
func clarifyingRequest(q host.Question, content []sdk.ToolCallContent, options []sdk.PermissionOption,
	choices map[sdk.PermissionOptionId]choice) ([]sdk.ToolCallContent, []sdk.PermissionOption) {
	var b strings.Builder
	for _, o := range q.Options {
		fmt.Fprintf(&b, textClarifyOption, o.Label, o.Description)
	}
	if q.MultiSelect {
		b.WriteString(textClarifyOne)
	}
	b.WriteString(textClarifyOther)
	content = append(content, sdk.ToolContent(sdk.TextBlock(b.String())))
	id := sdk.PermissionOptionId(skipOptionID)
	for i := 2; taken(choices, id); i++ {
		id = sdk.PermissionOptionId(fmt.Sprintf("%s-%d", skipOptionID, i))
	}
	choices[id] = choice{skip: true}
	options = append(options, sdk.PermissionOption{OptionId: id, Name: textSkipOption, Kind: sdk.PermissionOptionKindRejectOnce})
	return content, options
}

// taken reports whether id already names an option.
func taken(choices map[sdk.PermissionOptionId]choice, id sdk.PermissionOptionId) bool {
	_, ok := choices[id]
	return ok
}
