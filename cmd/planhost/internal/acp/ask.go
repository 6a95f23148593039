package acp

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/present"
	"github.com/dshgo/planmode/internal/safetext"
)

// Ask implements the host's user-question provider: each question becomes
// a session/request_permission on the tool call that asked (a question
// outside a tool call gets a tool call of its own), showing the question
// as every front end does ([present.Catalog.Question]): its text, the plan
// or the question's fields (text from outside as a Markdown code block,
// see shownPlan), what changed, and the tool call's title and kind. The
// options are permissionOptions'. A question from the model (a clarifying
// request) is titled and framed as the model's, whatever it says. A
// request the client answers "cancelled", or answered with the Dismiss
// option, is a dismissal ([host.ErrDismissed]); a request that fails or
// whose ctx ends is aborted ([host.ErrAborted]).
func (a *Agent) Ask(ctx context.Context, req host.AskRequest) ([]host.Answer, error) {
	if req.Agent == nil || req.Agent.Session() == nil {
		return nil, fmt.Errorf("acp: ask: %w", host.ErrNoProvider)
	}
	id := req.Agent.Session().ID()
	a.mu.Lock()
	s, ok := a.sessions[id]
	a.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("acp: ask: session %q has no client: %w", id, host.ErrNoProvider)
	}
	answers := make([]host.Answer, 0, len(req.Questions))
	for i := range req.Questions {
		ans, err := s.ask(ctx, req, i)
		if err != nil {
			return nil, err
		}
		answers = append(answers, ans)
	}
	return answers, nil
}

// ask puts question i of req to the client.
func (s *session) ask(ctx context.Context, req host.AskRequest, i int) (host.Answer, error) {
	q, cat := req.Questions[i], s.a.cat
	shown := cat.Question(req, i, s.agent.Session().Events(), false)
	call, inCall := s.openCall()
	callID := sdk.ToolCallId(call.ID)
	// The request names its tool call's title and kind, so that a client
	// showing the request on its own still says what it is about.
	title, toolKind := shownTitle(shown.Title), sdk.ToolKindThink
	switch {
	case req.Kind == host.AskClarify:
		title = cat.ACP.Question
	case inCall:
		root, _ := s.a.cfg.Workspaces.Root(s.id)
		title, _, _ = describe(cat, call, root, nil)
		toolKind = s.a.kind(call.Name)
	}
	if !inCall {
		s.mu.Lock()
		s.asked++
		callID = sdk.ToolCallId(fmt.Sprintf("question-%d-%s", s.asked, q.ID))
		s.mu.Unlock()
		s.q.push(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
			ToolCallId: callID,
			Title:      title,
			Kind:       toolKind,
			Status:     sdk.ToolCallStatusPending,
		}})
	}
	// The client sees the tool call before it is asked about it.
	if err := s.q.flush(ctx); err != nil {
		return host.Answer{}, fmt.Errorf("acp: ask: %w: %w", host.ErrAborted, err)
	}
	options, choices := permissionOptions(cat, req.Kind, shown.Menu)
	update := sdk.ToolCallUpdate{ToolCallId: callID, Content: requestContent(cat, shown, q), Title: &title, Kind: &toolKind}
	resp, err := s.a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(s.id),
		ToolCall:  update,
		Options:   options,
	})
	if !inCall {
		status := sdk.ToolCallStatusCompleted
		if err != nil || resp.Outcome.Cancelled != nil {
			status = sdk.ToolCallStatusFailed
		}
		s.q.push(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: callID, Status: &status}})
	}
	switch {
	case err != nil:
		return host.Answer{}, fmt.Errorf("acp: ask: %w: %w", host.ErrAborted, err)
	case resp.Outcome.Cancelled != nil:
		return host.Answer{}, fmt.Errorf("acp: ask: the client cancelled the request: %w", host.ErrDismissed)
	case resp.Outcome.Selected == nil:
		return host.Answer{}, fmt.Errorf("acp: ask: the client sent no outcome: %w", host.ErrDismissed)
	}
	c, ok := choices[resp.Outcome.Selected.OptionId]
	switch {
	case !ok:
		return host.Answer{}, fmt.Errorf("acp: ask: the client chose unknown option %q: %w", resp.Outcome.Selected.OptionId, host.ErrDismissed)
	case c.dismiss:
		return host.Answer{}, fmt.Errorf("acp: ask: the user chose to say what to change: %w", host.ErrDismissed)
	case c.skip:
		return host.Answer{QuestionID: q.ID}, nil
	}
	return host.Answer{QuestionID: q.ID, Selected: []string{c.label}, DetailDigest: q.DetailDigest}, nil
}

// requestContent is what a permission request shows of a question. A
// question from the model: the catalog's frame saying whose question it
// is, the model's header, question and detail as a code block of their
// exact text (so that nothing the model wrote is rendered as the agent's
// own words), and how to answer beyond one option. Any other question:
// what changed, the plan or the question's fields, and the question.
func requestContent(cat *present.Catalog, shown present.Question, q host.Question) []sdk.ToolCallContent {
	var texts []string
	switch {
	case shown.Kind == host.AskClarify:
		var model []string
		for _, t := range []string{q.Header, q.Question, q.Detail} {
			if strings.TrimSpace(t) != "" {
				model = append(model, t)
			}
		}
		notes := cat.ACP.ClarifyOther
		if q.MultiSelect {
			notes = cat.ACP.ClarifyOne + "\n\n" + notes
		}
		texts = []string{cat.Form.From, shownPlan(strings.Join(model, "\n\n")), notes}
	default:
		if shown.Diff != "" {
			texts = append(texts, shown.DiffTitle+"\n\n"+shownPlan(shown.Diff))
		}
		if shown.Fields != nil {
			lines := make([]string, len(shown.Fields))
			for i, f := range shown.Fields {
				lines[i] = shownEntry(f)
			}
			texts = append(texts, strings.Join(lines, "\n\n"))
		} else if shown.Detail != "" {
			texts = append(texts, shownPlan(shown.Detail))
		}
		texts = append(texts, shown.Text)
	}
	content := make([]sdk.ToolCallContent, len(texts))
	for i, t := range texts {
		content[i] = sdk.ToolContent(sdk.TextBlock(t))
	}
	return content
}

// speakOptionID is the ID of the Dismiss option, which stops the question
// so the user can say what to change; slug never makes an ID with "_", so
// no option's label can take it.
const speakOptionID sdk.PermissionOptionId = "_speak"

// skipOptionID is the ID of the option that skips a question from the
// model.
const skipOptionID = "planhost-skip-question"

// choice is what a permission option answers: an option's label, the
// dismissal that lets the user speak instead, or skipping a question from
// the model.
type choice struct {
	label         string
	dismiss, skip bool
}

// permissionOptions are a question's menu as permission options, and what
// each option's ID answers. The kind carries the meaning: an approving
// choice is allow_once and every other reject_once, so no answer to a
// question from the model is drawn (or picked by a client that allows
// everything) as an approval. Each is named as the catalog says,
// "label: description" (Keep planning says that the model revises the
// plan on its own); an option of a question from the model is named
// as an answer, so that none takes the name of a review's option, and
// "Skip this question" is added. Choices that need the user's text are
// left out, since a permission option carries none: the Dismiss choice
// lets the user say it in the next prompt.
func permissionOptions(cat *present.Catalog, kind host.AskKind, menu []present.Choice) ([]sdk.PermissionOption, map[sdk.PermissionOptionId]choice) {
	out := make([]sdk.PermissionOption, 0, len(menu)+1)
	choices := make(map[sdk.PermissionOptionId]choice, len(menu)+1)
	for _, ch := range menu {
		if ch.NeedsText() {
			continue
		}
		description := ch.Description
		if ch.Option.Role == host.RoleKeepPlanning {
			description = cat.ACP.KeepPlanning // no feedback goes with it
		}
		name := ch.Label
		if description != "" {
			name = fmt.Sprintf(cat.ACP.Option, ch.Label, description)
		}
		if kind == host.AskClarify {
			name = fmt.Sprintf(cat.ACP.Answer, name)
		}
		pkind := sdk.PermissionOptionKindRejectOnce
		if ch.Approves() {
			pkind = sdk.PermissionOptionKindAllowOnce
		}
		id, c := unused(choices, slug(ch.Option.Label)), choice{label: ch.Option.Label}
		if ch.Action == present.Dismiss {
			id, c = speakOptionID, choice{dismiss: true}
		}
		choices[id] = c
		out = append(out, sdk.PermissionOption{OptionId: id, Name: safetext.Escape(name), Kind: pkind})
	}
	if kind == host.AskClarify {
		id := unused(choices, skipOptionID)
		choices[id] = choice{skip: true}
		out = append(out, sdk.PermissionOption{OptionId: id, Name: cat.ACP.Skip, Kind: sdk.PermissionOptionKindRejectOnce})
	}
	return out, choices
}

// unused is id, or id with the first number that makes it name no option
// of choices yet.
func unused(choices map[sdk.PermissionOptionId]choice, id string) sdk.PermissionOptionId {
	if id == "" {
		id = "option"
	}
	out := sdk.PermissionOptionId(id)
	for n := 2; ; n++ {
		if _, taken := choices[out]; !taken {
			return out
		}
		out = sdk.PermissionOptionId(fmt.Sprintf("%s-%d", id, n))
	}
}

// slug makes an option ID from a label: lower case letters and digits,
// other runs as one "-".
func slug(label string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(label) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}
