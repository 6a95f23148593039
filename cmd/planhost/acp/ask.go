package acp

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/pmezard/go-difflib/difflib"

	"github.com/dshgo/planmode/host"
)

// Ask implements the host's user-question provider: each question becomes
// a session/request_permission on the tool call that asked (a question
// outside a tool call gets a tool call of its own), with the question's
// detail, the plan of a plan review, in the tool call's content (as a
// Markdown code block of its exact text, see shownPlan). The
// approving option of the request's intent is allow_once and the other
// options reject_once; with no approving option every option is
// allow_once. A clarifying question (intent plan-ask) also lists its
// options' descriptions and offers a reject_once "Skip this question"
// (see clarifyingRequest). A request the client answers "cancelled" is a dismissal
// ([host.ErrDismissed]); a request that fails or whose ctx ends is aborted
// ([host.ErrAborted]).
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
		ans, err := s.ask(ctx, q, req.Intent)
		if err != nil {
			return nil, err
		}
		answers = append(answers, ans)
	}
	return answers, nil
}

// ask puts one question to the client.
func (s *session) ask(ctx context.Context, q host.Question, intent *host.Intent) (host.Answer, error) {
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
	if d := changeDiff(q.Previous, q.Detail); d != "" {
		// Asked again: the text changed during the review.
		content = append(content, sdk.ToolContent(sdk.TextBlock(textChanged+"\n"+d)))
	}
	if q.Detail != "" {
		content = append(content, sdk.ToolContent(sdk.TextBlock(shownPlan(q.Detail))))
	}
	content = append(content, sdk.ToolContent(sdk.TextBlock(q.Question)))
	options, labels := permissionOptions(q.Options, intent)
	if isClarifying(intent) {
		content, options = clarifyingRequest(q, content, options, labels)
	}
	update := sdk.ToolCallUpdate{ToolCallId: callID, Content: content}
	if !inCall {
		update.Title = &title
	}
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
	label, ok := labels[resp.Outcome.Selected.OptionId]
	if !ok {
		return host.Answer{}, fmt.Errorf("acp: ask: the client chose unknown option %q: %w", resp.Outcome.Selected.OptionId, host.ErrDismissed)
	}
	if label == skipLabel {
		return host.Answer{QuestionID: q.ID}, nil
	}
	return host.Answer{QuestionID: q.ID, Selected: []string{label}, DetailDigest: q.DetailDigest}, nil
}

// changeDiff is a unified diff, without file headers, of a question's
// detail against the text it showed before it changed; "" when there is
// no previous text.
func changeDiff(previous, current string) string {
	if previous == "" {
		return ""
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(strings.TrimRight(previous, "\n") + "\n"), B: difflib.SplitLines(strings.TrimRight(current, "\n") + "\n"), Context: 1,
	})
	if err != nil {
		return ""
	}
	var out []string
	for l := range strings.SplitSeq(strings.TrimRight(d, "\n"), "\n") {
		if !strings.HasPrefix(l, "---") && !strings.HasPrefix(l, "+++") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// permissionOptions maps a question's options to permission options, and
// their IDs back to the labels.
func permissionOptions(opts []host.Option, intent *host.Intent) ([]sdk.PermissionOption, map[sdk.PermissionOptionId]string) {
	approve := ""
	if intent != nil {
		approve = intent.ApproveOption
	}
	out := make([]sdk.PermissionOption, 0, len(opts))
	labels := make(map[sdk.PermissionOptionId]string, len(opts))
	for i, o := range opts {
		id := sdk.PermissionOptionId(slug(o.Label))
		if _, taken := labels[id]; taken || id == "" {
			id = sdk.PermissionOptionId(fmt.Sprintf("%s-%d", id, i+1))
		}
		labels[id] = o.Label
		kind := sdk.PermissionOptionKindAllowOnce
		if approve != "" && o.Label != approve {
			kind = sdk.PermissionOptionKindRejectOnce
		}
		out = append(out, sdk.PermissionOption{OptionId: id, Name: o.Label, Kind: kind})
	}
	return out, labels
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
