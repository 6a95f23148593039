// Package refhosttest helps tests run suites of package hosttest on a
// host built on refhost. It is for tests only: programs never import it,
// so the testing kit stays out of their binaries.
package refhosttest

import (
	"context"

	"github.com/dshgo/planmode/host/hosttest"
	"github.com/dshgo/planmode/refhost"
)

// LoopModel returns a model that answers through m, the model of
// [hosttest.TestLoop], for a host built on refhost to run that suite. m
// sees each request's system prompt, tool names and message texts.
func LoopModel(m *hosttest.LoopModel) refhost.Model { return loopModel{m} }

// loopModel is the model LoopModel returns.
type loopModel struct{ m *hosttest.LoopModel }

func (l loopModel) Generate(ctx context.Context, req refhost.Request) (refhost.Response, error) {
	lr := hosttest.LoopRequest{System: req.System}
	for _, d := range req.Tools {
		lr.Tools = append(lr.Tools, d.Name)
	}
	for _, m := range req.Messages {
		text := m.Text
		for _, b := range m.Content {
			text += b.Text
		}
		lr.Messages = append(lr.Messages, text)
	}
	rep, err := l.m.Reply(ctx, lr)
	return refhost.Response{Text: rep.Text, ToolCalls: rep.ToolCalls}, err
}
