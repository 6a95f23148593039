package acp

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/plandiff"
)

// Ask implements the host's user-question provider: each question becomes
// a session/request_permission on the tool call that asked (a question
// outside a tool call gets a tool call of its own), with the question's
// detail, the plan of a plan review, in the tool call's content (as a
// Markdown code block of its exact text, see shownPlan), and the tool
// call's title and kind. The options are permissionOptions'. A clarifying
// question (intent plan-ask) also lists its options' descriptions and
// offers a reject_once "Skip this question" (see clarifyingRequest). A
// request the client answers "cancelled", or a plan review answered "No,
// stop here", is a dismissal ([host.ErrDismissed]); a request that fails
// or whose ctx ends is aborted ([host.ErrAborted]).
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
	for _, q := range req.Questions {
		ans, err := s.ask(ctx, q, req.Kind)
		if err != nil {
			return nil, err
		}
		answers = append(answers, ans)
	}
	return answers, nil
}

// ask puts one question to the client.
func (s *session) ask(ctx context.Context, q host.Question, kind host.AskKind) (host.Answer, error) {
	call, inCall := s.openCall()
	callID := sdk.ToolCallId(call.ID)
	title := q.Header
	if title == "" {
		title = textQuestionTitle
	}
	if !inCall {
		s.mu.Lock()
		s.asked++
		callID = sdk.ToolCallId(fmt.Sprintf("question-%d-%s", s.asked, q.ID))
		s.mu.Unlock()
		s.q.push(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
			ToolCallId: callID,
			Title:      title,
			Kind:       sdk.ToolKindThink,
			Status:     sdk.ToolCallStatusPending,
		}})
	}
	// The client sees the tool call before it is asked about it.
	if err := s.q.flush(ctx); err != nil {
		return host.Answer{}, fmt.Errorf("acp: ask: %w: %w", host.ErrAborted, err)
	}
	var content []sdk.ToolCallContent
	if d := plandiff.Unified(q.Previous, q.Detail); d != "" {
		// Asked again: the text changed during the review.
		content = append(content, sdk.ToolContent(sdk.TextBlock(textChanged+"\n"+d)))
	} else if d := plandiff.Unified(q.Reopened, q.Detail); q.Reopened != "" && d != "" {
		// The plan revises one the user reopened.
		content = append(content, sdk.ToolContent(sdk.TextBlock(textReopened+"\n"+d)))
	}
	if q.Detail != "" {
		content = append(content, sdk.ToolContent(sdk.TextBlock(shownPlan(q.Detail))))
	}
	content = append(content, sdk.ToolContent(sdk.TextBlock(q.Question)))
	options, choices := permissionOptions(q.Options, kind)
	if kind == host.AskClarify {
		content, options = clarifyingRequest(q, content, options, choices)
	}
	// The request names its tool call's title and kind, so that a client
	// showing the request on its own still says what it is about.
	toolKind := sdk.ToolKindThink
	if inCall {
		root, _ := s.a.cfg.Workspaces.Root(s.id)
		title, _, _ = describe(call, root, nil)
		toolKind = s.a.kind(call.Name)
	}
	update := sdk.ToolCallUpdate{ToolCallId: callID, Content: content, Title: &title, Kind: &toolKind}
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
	}
	if c.skip {
		return host.Answer{QuestionID: q.ID}, nil
	}
	return host.Answer{QuestionID: q.ID, Selected: []string{c.label}, DetailDigest: q.DetailDigest}, nil
}

// speakOptionID is the ID of the plan review's option that stops the
// review so the user can say what to change; slug never makes an ID with
// "_", so no option's label can take it.
const speakOptionID sdk.PermissionOptionId = "_speak"

// choice is what a permission option answers: an option's label, or the
// dismissal that lets the user speak instead.
type choice struct {
	label   string
	dismiss bool
	// skip is a clarifying question's "Skip this question".
	skip bool
}

// permissionOptions maps a question's options to permission options, and
// their IDs back to what they answer, from the options' roles: an
// approving option is allow_once and any other reject_once (in a
// clarifying request, which approves nothing, every option is
// allow_once). A plan review gets its own words; options that need the
// user's text (Approve with comments) are left out, since a permission
// option carries none, and "No, stop here: I will say what to change" is
// added: it stops the review so that the user's next prompt says it.
func permissionOptions(opts []host.Option, kind host.AskKind) ([]sdk.PermissionOption, map[sdk.PermissionOptionId]choice) {
	review := kind == host.AskReview
	out := make([]sdk.PermissionOption, 0, len(opts)+1)
	choices := make(map[sdk.PermissionOptionId]choice, len(opts)+1)
	for i, o := range opts {
		name, pkind := o.Label, sdk.PermissionOptionKindRejectOnce
		if o.Role.Approves() || kind == host.AskClarify {
			pkind = sdk.PermissionOptionKindAllowOnce
		}
		if review {
			var offered bool
			name, offered = reviewOption(o)
			if !offered {
				continue
			}
		}
		id := sdk.PermissionOptionId(slug(o.Label))
		if _, taken := choices[id]; taken || id == "" {
			id = sdk.PermissionOptionId(fmt.Sprintf("%s-%d", id, i+1))
		}
		choices[id] = choice{label: o.Label}
		out = append(out, sdk.PermissionOption{OptionId: id, Name: name, Kind: pkind})
	}
	if review {
		choices[speakOptionID] = choice{dismiss: true}
		out = append(out, sdk.PermissionOption{OptionId: speakOptionID, Name: optionSpeak, Kind: sdk.PermissionOptionKindRejectOnce})
	}
	return out, choices
}

// reviewOption is how a plan review's option is offered, by its role: its
// name, and false when it needs text a permission option cannot carry.
// An option of a role this package has no words for keeps its label.
func reviewOption(o host.Option) (name string, offered bool) {
	if o.Role.NeedsText() {
		return "", false
	}
	switch o.Role {
	case host.RoleApprove:
		return optionApprove, true
	case host.RoleApproveAndClear:
		return optionApproveClear, true
	case host.RoleApproveWithModel:
		return fmt.Sprintf(optionApproveWith, o.Model), true
	case host.RoleKeepPlanning:
		return optionKeepPlanning, true
	case host.RoleAbandon:
		return optionAbandon, true
	}
	return o.Label, true
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
