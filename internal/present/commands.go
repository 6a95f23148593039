package present

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
)

// Reopened is the number of the plan a "/plan reopen" logged from index
// from of log on reopened (the last, when several did); 0 for none.
func Reopened(log host.Log, from int) int {
	n := 0
	for _, e := range log.Range(from, log.Len()) {
		var p planmode.ReopenPayload
		if e.Type == planmode.EventPlanReopen && decode(e.Data, &p) == nil {
			n = p.Number
		}
	}
	return n
}

// Command is a host command's help in the catalog's words: the host's
// own hint and description unless the catalog has them.
func (c *Catalog) Command(cmd host.Command) host.Command {
	if w, ok := c.Commands[cmd.Name]; ok {
		cmd.Hint, cmd.Description = w.Hint, w.Description
	}
	return cmd
}

// CommandReply is what a front end shows after running the command name:
// unknown, failed (naming the command once), or its reply. "/plan"'s reply is said in the catalog's
// words from the plan-mode state after it (st, with composed false when
// the deployment has no plan mode) and the plan it reopened (reopened, see
// [Reopened]); any other command's reply is the host's.
func (c *Catalog) CommandReply(name string, handled bool, reply string, err error, st planmode.State, composed bool, reopened int) []Item {
	w := &c.Session
	switch {
	case !handled:
		return []Item{{Kind: Error, Text: fmt.Sprintf(w.UnknownCommand, "/"+name)}}
	case err != nil && name == planmode.CommandName && c.planError(err) != "":
		return []Item{{Kind: Error, Text: fmt.Sprintf(w.CommandFailed, name, c.planError(err))}}
	case err != nil:
		// A host names the command before its error ("/plan: ..."), as
		// CommandFailed does.
		text := strings.TrimPrefix(err.Error(), "/"+name+": ")
		return []Item{{Kind: Error, Text: fmt.Sprintf(w.CommandFailed, name, text)}}
	case name == planmode.CommandName && composed:
		reply = c.PlanReply(st, reopened)
	}
	if reply == "" {
		return nil
	}
	return []Item{{Kind: Note, Text: fmt.Sprintf(w.Reply, name, reply)}}
}

// The codes of "/plan"'s failures ([planmode.Error]).
const (
	codeNoSuchPlan       = "no-such-plan"
	codePlanNotLogged    = "plan-not-logged"
	codeNoApprovedPlan   = "no-approved-plan"
	codeOffWithImages    = "off-with-images"
	codeReopenWithImages = "reopen-with-images"
	codeSteerFailed      = "steer-failed"
	codeReopenFailed     = "reopen-failed"
)

// planError is a "/plan" failure in the catalog's words, from its code
// and details, never from its message (English, for the host); "" for a
// failure the catalog has no words for.
func (c *Catalog) planError(err error) string {
	w := &c.Session
	var pe *planmode.Error
	switch {
	case errors.Is(err, planmode.ErrNotRunning):
		return w.PlanNotRunning
	case !errors.As(err, &pe):
		return ""
	}
	switch pe.Code {
	case codeNoSuchPlan:
		if pe.Plans == 0 {
			return w.NoPlans
		}
		return fmt.Sprintf(w.NoSuchPlan, pe.Plans)
	case codePlanNotLogged:
		return fmt.Sprintf(w.PlanNotLogged, pe.Plan)
	case codeNoApprovedPlan:
		return w.NoApprovedPlan
	case codeOffWithImages:
		return w.OffWithImages
	case codeReopenWithImages:
		return w.ReopenWithImages
	case codeSteerFailed:
		return fmt.Sprintf(w.SteerFailed, pe.Unwrap())
	case codeReopenFailed:
		return fmt.Sprintf(w.ReopenFailed, pe.Unwrap())
	}
	return ""
}

// PlanReply is "/plan"'s reply in the catalog's words, for the state after
// it and the plan it reopened (0 for none).
func (c *Catalog) PlanReply(st planmode.State, reopened int) string {
	if reopened > 0 {
		return sentences(c.planMode(st), fmt.Sprintf(c.Session.PlanReopened, reopened))
	}
	return c.planMode(st)
}

// planMode says the mode after a "/plan".
func (c *Catalog) planMode(st planmode.State) string {
	target := st.Active
	switch st.Pending {
	case planmode.SelectionActive:
		target = true
	case planmode.SelectionInactive:
		target = false
	}
	w := &c.Session
	switch {
	case target && st.Active:
		return w.PlanOn
	case target:
		return w.PlanOnNext
	case st.Active:
		return w.PlanOffNext
	}
	return w.PlanOff
}
