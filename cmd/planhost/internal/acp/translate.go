package acp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/cmd/planhost/internal/mdview"
	"github.com/dshgo/planmode/cmd/planhost/workspace"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/internal/safetext"
	"github.com/dshgo/planmode/planask"
)

// DefaultToolKinds are the protocol's tool kinds of the tools planhost
// registers; a tool not named here is "other". [Config.ToolKinds] adds to
// them (companions' tools, say).
func DefaultToolKinds() map[string]sdk.ToolKind {
	return map[string]sdk.ToolKind{
		workspace.ReadFileName:  sdk.ToolKindRead,
		workspace.ListFilesName: sdk.ToolKindSearch,
		workspace.SearchName:    sdk.ToolKindSearch,
		workspace.WriteFileName: sdk.ToolKindEdit,
		planmode.ExitToolName:   sdk.ToolKindSwitchMode,
	}
}

// toolInput is the union of the workspace tools' and the exit tool's
// inputs, read leniently for titles and locations (never for execution).
type toolInput struct {
	Path    string `json:"path"`
	Pattern string `json:"pattern"`
	Content string `json:"content"`
	Plan    string `json:"plan"`
}

// describe returns the title, locations and content of a tool call as the
// client shows them, in cat's words. root is the session's workspace root
// ("" when unknown); old is the file's content before a write, when known.
// The title holds the model's arguments (paths, a pattern, the plan's
// heading, the tool's name), so it is shown escaped (shownTitle).
func describe(cat *present.Catalog, call host.ToolCall, root string, old *string) (string, []sdk.ToolCallLocation, []sdk.ToolCallContent) {
	title, locs, content := describeCall(cat, call, root, old)
	return shownTitle(title), locs, content
}

// shownTitle is a tool call's title as the client gets it: one line, every
// invisible or control character (line breaks and tabs too) as a visible
// escape.
func shownTitle(title string) string {
	return strings.NewReplacer("\n", "\\n", "\t", "\\t").Replace(safetext.Escape(title))
}

// describeCall is describe's title (unescaped), locations and content.
func describeCall(cat *present.Catalog, call host.ToolCall, root string, old *string) (title string, locs []sdk.ToolCallLocation, content []sdk.ToolCallContent) {
	w := &cat.ACP
	var in toolInput
	_ = json.Unmarshal(call.Input, &in)
	abs := func(p string) string {
		if p == "" {
			p = "."
		}
		rel, err := workspace.CleanPath(p)
		if err != nil || root == "" {
			return ""
		}
		return filepath.Join(root, filepath.FromSlash(rel))
	}
	loc := func(p string) []sdk.ToolCallLocation {
		if a := abs(p); a != "" {
			return []sdk.ToolCallLocation{{Path: a}}
		}
		return nil
	}
	orDot := func(p string) string {
		if p == "" {
			return "."
		}
		return p
	}
	switch call.Name {
	case workspace.ReadFileName:
		return fmt.Sprintf(w.ToolRead, in.Path), loc(in.Path), nil
	case workspace.ListFilesName:
		return fmt.Sprintf(w.ToolList, orDot(in.Path)), loc(in.Path), nil
	case workspace.SearchName:
		return fmt.Sprintf(w.ToolSearch, in.Pattern, orDot(in.Path)), loc(in.Path), nil
	case workspace.WriteFileName:
		title = fmt.Sprintf(w.ToolWrite, in.Path)
		if a := abs(in.Path); a != "" {
			return title, loc(in.Path), []sdk.ToolCallContent{{Diff: &sdk.ToolCallContentDiff{Path: a, NewText: in.Content, OldText: old, Type: "diff"}}}
		}
		return title, nil, nil
	case planmode.ExitToolName:
		if in.Plan != "" {
			content = []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(shownPlan(in.Plan)))}
		}
		return cat.PlanHeading(in.Plan), nil, content
	case planask.ToolName:
		// Whatever the model wrote, its questions are titled as its own.
		return w.Question, nil, nil
	}
	return call.Name, nil, nil
}

// shownPlan is text from outside (a plan, a diff, what the model asks, a
// tool's output) as the client gets it to show: a Markdown code block of
// its exact text, invisible characters made visible, since an editor
// renders Markdown and would drop raw HTML, comments, link targets and
// reference definitions from the text the user answers.
func shownPlan(plan string) string {
	return mdview.Fence(safetext.Escape(plan))
}

// shownEntry is a plan entry's text as the client gets it: Markdown that
// shows the text as it is.
func shownEntry(s string) string {
	return mdview.Literal(safetext.Escape(s))
}

// blocks turns a logged message's content into protocol content blocks.
func blocks(content []host.Block) []sdk.ContentBlock {
	out := make([]sdk.ContentBlock, 0, len(content))
	for _, b := range content {
		switch b.Type {
		case host.BlockText:
			if b.Text != "" {
				out = append(out, sdk.TextBlock(b.Text))
			}
		case host.BlockImage:
			out = append(out, sdk.ImageBlock(base64.StdEncoding.EncodeToString(b.Data), b.MediaType))
		}
	}
	return out
}

// promptMessage turns a prompt into the host message it steers, and the
// text of its text blocks (for command routing).
func promptMessage(prompt []sdk.ContentBlock) (host.Message, string, error) {
	var m host.Message
	var text strings.Builder
	for i, b := range prompt {
		switch {
		case b.Text != nil:
			if b.Text.Text != "" {
				m.Content = append(m.Content, host.TextBlock(b.Text.Text))
				text.WriteString(b.Text.Text)
			}
		case b.Image != nil:
			data, err := base64.StdEncoding.DecodeString(b.Image.Data)
			if err != nil {
				return host.Message{}, "", sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf(errBadImage, i, err)})
			}
			m.Content = append(m.Content, host.Block{Type: host.BlockImage, MediaType: b.Image.MimeType, Data: data})
		case b.ResourceLink != nil:
			l := b.ResourceLink
			m.Content = append(m.Content, host.TextBlock(fmt.Sprintf("[%s](%s)", l.Name, l.Uri)))
		case b.Resource != nil:
			if t := b.Resource.Resource.TextResourceContents; t != nil {
				m.Content = append(m.Content, host.TextBlock(fmt.Sprintf("<resource uri=%q>\n%s\n</resource>", t.Uri, t.Text)))
			} else if bl := b.Resource.Resource.BlobResourceContents; bl != nil {
				m.Content = append(m.Content, host.TextBlock(fmt.Sprintf("[%s]", bl.Uri)))
			}
		case b.Audio != nil:
			return host.Message{}, "", sdk.NewInvalidParams(map[string]any{"error": errAudio})
		}
	}
	if len(m.Content) == 0 {
		return host.Message{}, "", sdk.NewInvalidParams(map[string]any{"error": errEmptyPrompt})
	}
	// Images before text, by the host's convention.
	images := make([]host.Block, 0, len(m.Content))
	texts := make([]host.Block, 0, len(m.Content))
	for _, b := range m.Content {
		if b.Type == host.BlockImage {
			images = append(images, b)
		} else {
			texts = append(texts, b)
		}
	}
	m.Content = append(images, texts...)
	return m, text.String(), nil
}

// modeID names the mode for active.
func modeID(active bool) sdk.SessionModeId {
	if active {
		return ModePlan
	}
	return ModeDefault
}

// modeState is the modes offered with the current one.
func modeState(cat *present.Catalog, active bool) *sdk.SessionModeState {
	w := &cat.ACP
	return &sdk.SessionModeState{
		AvailableModes: []sdk.SessionMode{
			{Id: ModeDefault, Name: w.ModeDefault, Description: sdk.Ptr(w.ModeDefaultDesc)},
			{Id: ModePlan, Name: w.ModePlan, Description: sdk.Ptr(w.ModePlanDesc)},
		},
		CurrentModeId: modeID(active),
	}
}

// configOptions is the mode config option with the current mode.
func configOptions(cat *present.Catalog, active bool) []sdk.SessionConfigOption {
	w := &cat.ACP
	category := sdk.SessionConfigOptionCategoryMode
	opts := sdk.SessionConfigSelectOptionsUngrouped{
		{Value: ModeDefault, Name: w.ModeDefault, Description: sdk.Ptr(w.ModeDefaultDesc)},
		{Value: ModePlan, Name: w.ModePlan, Description: sdk.Ptr(w.ModePlanDesc)},
	}
	return []sdk.SessionConfigOption{{Select: &sdk.SessionConfigOptionSelect{
		Id:           ConfigMode,
		Name:         w.ConfigMode,
		Description:  sdk.Ptr(w.ConfigModeDesc),
		Category:     &category,
		CurrentValue: sdk.SessionConfigValueId(modeID(active)),
		Options:      sdk.SessionConfigSelectOptions{Ungrouped: &opts},
		Type:         "select",
	}}}
}
