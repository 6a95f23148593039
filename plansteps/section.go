package plansteps

import (
	"fmt"
	"strings"

	"github.com/dshgo/planmode/host"
)

// sectionText is plan:progress: while a plan is executing, its title,
// each step as ✓ / ▶ / ○ and the next step.
func (p *Plugin) sectionText(ac host.AssembleContext) string {
	if ac.Agent == nil || ac.Agent.Session() == nil {
		return ""
	}
	s, err := p.folds.Get(ac.Agent.Session())
	if err != nil {
		return ""
	}
	return ProgressText(s)
}

// ProgressText is the text of plan:progress for s: empty unless a plan is
// executing.
func ProgressText(s State) string {
	if !s.Executing() {
		return ""
	}
	x := s.Plan
	var b strings.Builder
	fmt.Fprintf(&b, sectionHead, oneLine(x.Title), x.Completed(), len(x.Steps))
	cur := x.Current()
	icons := map[string]string{statusCompleted: iconCompleted, statusInProgress: iconInProgress, statusPending: iconPending}
	for _, st := range x.Steps {
		fmt.Fprintf(&b, "%s %d. %s", icons[stepStatus(st, cur)], st.ID, oneLine(st.Description))
		if len(st.DependsOn) > 0 && !st.Completed && !x.ready(st.Step) {
			fmt.Fprintf(&b, sectionAfter, joinInts(st.DependsOn))
		}
		b.WriteByte('\n')
	}
	switch {
	case cur != 0:
		step := x.Steps[cur-1]
		fmt.Fprintf(&b, sectionNext, cur, oneLine(step.Description))
		if step.Verification != "" {
			fmt.Fprintf(&b, sectionVerify, oneLine(step.Verification))
		}
		b.WriteString(sectionHowTo)
	case x.Completed() == len(x.Steps):
		b.WriteString(sectionAllDone)
	default:
		b.WriteString(sectionBlocked)
	}
	return b.String()
}
