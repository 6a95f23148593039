package present

import (
	"strings"

	"github.com/dshgo/planmode/host"
)

// Catalog holds every word a front end shows the user, in one language.
// Formats take the arguments their English values show. Model-facing
// text (tool results, notices, section text) is never here: the model
// reads instructions in English whatever the user's language.
type Catalog struct {
	// Lang is the language tag: "en" or "zh".
	Lang string

	Session SessionWords
	Review  ReviewWords
	Form    FormWords
	Boxes   BoxWords
	Plans   PlansWords
	UI      UIWords
	Console ConsoleWords
	ACP     ACPWords
	Page    PageWords
	Demo    DemoWords
	// Commands are the host commands' hints and descriptions in these
	// words, by name; a command not listed shows the host's own.
	Commands map[string]CommandWords
}

// CommandWords are a host command's hint and description.
type CommandWords struct {
	Hint, Description string
}

// SessionWords are the transcript's lines.
type SessionWords struct {
	// ModeDefault and ModePlan name the modes; ModeSwitch shows a
	// switch waiting for the next step ("%s → %s").
	ModeDefault, ModePlan, ModeSwitch string
	// ModeOn and ModeOff mark a logged mode change.
	ModeOn, ModeOff string
	// Pending is a switch waiting for the next step (%s: the mode).
	Pending string
	// Header is a request header: its reason and its sections.
	Header, NoSections string
	// Notice is a plugin's text for the model: the plugin, the text.
	Notice string
	// Model marks the model that answers from a step on.
	Model string
	// Compacted says the transcript the model sees restarts from a
	// summary.
	Compacted string
	// TurnStarted (turn) and TurnEnded (turn, reason) mark turns, with
	// the reasons a turn ends.
	TurnStarted, TurnEnded, TurnCompleted, TurnCancelled, TurnFailed, TurnBlocked string
	// TurnStepsExhausted is the reason of a turn that reached the host's
	// bound on steps.
	TurnStepsExhausted string
	// NoSuchPlan (how many plans there are), NoPlans, PlanNotLogged (the
	// plan) and NoApprovedPlan are "/plan reopen"'s failures, said from
	// its error's code.
	NoSuchPlan, NoPlans, PlanNotLogged, NoApprovedPlan string
	// OffWithImages and ReopenWithImages refuse images; SteerFailed and
	// ReopenFailed (the cause, the host's) and PlanNotRunning are
	// "/plan"'s other failures.
	OffWithImages, ReopenWithImages, SteerFailed, ReopenFailed, PlanNotRunning string
	// Assistant labels the model's answer.
	Assistant string
	// ToolCall and ToolResult show a call and its result on one line;
	// ResultError, ResultMore and InputBytes are parts of them.
	ToolCall, ToolResult, ResultError, ResultMore, InputBytes string
	// Reasoning is the model's thinking on one line (plain front ends).
	Reasoning string
	// PlanTitle heads a plan (%s: its title); Untitled stands for a plan
	// without a heading.
	PlanTitle, Untitled string
	// Outcome reports how a review ended (%s: the outcome's words).
	Outcome string
	// Reopen says a plan was reopened as the working draft (number,
	// title).
	Reopen string
	// Refused says a plan was refused before its review; NotApproved
	// gives the text of a result whose outcome the log does not record.
	Refused, NotApproved string
	// Image stands for an image of a message (%s: its media type).
	Image string
	// Reply is a command's reply (name, reply); UnknownCommand (the
	// command), CommandFailed (name, error) and SendFailed (error) are
	// failures; Queued says a message waits for the model's next step.
	Reply, UnknownCommand, CommandFailed, SendFailed, Queued string
	// PlanOn, PlanOnNext, PlanOff and PlanOffNext are "/plan"'s reply, from
	// the mode after it; PlanReopened is "/plan reopen"'s (%d: the plan).
	PlanOn, PlanOnNext, PlanOff, PlanOffNext, PlanReopened string
	// SessionBusy says another process runs the session's turn (host,
	// pid, since); LeaseLost that another process took the turn over.
	SessionBusy, LeaseLost string
	// LeaseExpired says the turn stopped because its lease could not be
	// renewed in time (the database unreachable); see [Catalog.LeaseLoss].
	LeaseExpired string
	// ModeFailed reports a switch of plan mode that failed.
	ModeFailed string
	// SessionLine (session, file), ModelAt (model, endpoint), PlanModelAt
	// (model, endpoint), Resumed (session, events) and SessionFile (file)
	// open and close a session.
	SessionLine, ModelAt, PlanModelAt, Resumed, SessionFile string
}

// ReviewWords are a question's words while it is asked: the plan review,
// the consents, and how each option is offered by its role.
type ReviewWords struct {
	// Title heads the plan under review (%s: its title); Question asks
	// what now; Changed asks again about a plan that changed during the
	// review.
	Title, Question, Changed string
	// DiffChanged, DiffRevised, DiffReopened (%d: the plan's number)
	// and DiffEdited head what changed: during the review, since the plan
	// sent back, since the plan reopened, in the user's edit.
	DiffChanged, DiffRevised, DiffReopened, DiffEdited string
	// UnchangedRevised and UnchangedReopened (%d: the plan's number) say
	// that a plan presented again is the one it is compared with.
	UnchangedRevised, UnchangedReopened string
	// DiffSummary stands for a folded diff (its heading, lines added,
	// removed); DiffShown heads it unfolded (its heading); FullPlan heads
	// the plan beside it.
	DiffSummary, DiffShown, FullPlan string
	// EditedNote says the plan shown is the user's edit.
	EditedNote string
	// PlanFile shows the plan file's path.
	PlanFile string
	// Hint and HintDiff list the review's keys; QuestionHint a question's.
	Hint, HintDiff, QuestionHint string
	// FeedbackTitle and CommentsTitle head the text the user writes;
	// FeedbackHint lists its keys; CommentsNeeded refuses empty comments.
	FeedbackTitle, CommentsTitle, FeedbackHint, CommentsNeeded string
	// KeysIgnored and ChooseFirst explain a key that did not answer.
	KeysIgnored, ChooseFirst string
	// EditorFailed and EditorUnchanged report the editor.
	EditorFailed, EditorUnchanged string
	// Options are the words of each role's option in a plan review.
	Options map[host.Role]OptionWords
	// ApproveWith and ApproveWithDesc offer to carry the plan out with
	// another model (%s: the model).
	ApproveWith, ApproveWithDesc string
	// Edit and Dismiss are the review's own answers.
	Edit, Dismiss OptionWords
	// Consents are the companions' consent questions in these words, by
	// the request's Purpose; a request the catalog lacks shows the
	// asker's own words.
	Consents map[string]ConsentWords
	// Field is one labelled value of a question: label, value.
	Field string
}

// OptionWords are an option's label and description.
type OptionWords struct {
	Label, Description string
}

// ConsentWords are a consent question's words: the question, its options
// by role and the labels of its fields by key. When a field lacks a label
// the question's Detail shows instead.
type ConsentWords struct {
	Question string
	Options  map[host.Role]OptionWords
	Fields   map[string]string
	// Closed says the question closed before the user answered (the
	// turn was cancelled); Dismissed that the user dismissed it.
	Closed, Dismissed string
}

// FormWords are the words of questions from the model (a clarifying
// request), which are never a review.
type FormWords struct {
	// From frames the questions as the model's.
	From string
	// Head: the question's number, the count and its header.
	Head string
	// Other labels the user's own answer; OtherEmpty stands for none;
	// OtherWins says it replaces the options ticked.
	Other, OtherEmpty, OtherWins string
	// Hint and HintMulti list the keys.
	Hint, HintMulti string
	// ChooseFirst, KeysIgnored: a key that did not answer.
	ChooseFirst, KeysIgnored string
	// Waiting is the status while a question waits for the user.
	Waiting string
}

// BoxWords are the companions' boxes: the plan's steps, the todo list
// and the questions asked.
type BoxWords struct {
	// StepsTitle heads a steps box whose plan has no title.
	StepsTitle string
	// Verified and Verify note a step's verification.
	Verified, Verify string
	// Done ends a completed execution (completed, steps, deviations);
	// NoSteps, AllDone, Next (done, total, next), Progress (done, total).
	Done, NoSteps, AllDone, Next, Progress string
	// Count is a count with its noun; Step/Steps and Deviation/Deviations
	// are the singular and plural.
	Count, Step, Steps, Deviation, Deviations string
	// Todo heads the todo list; TodoDone counts (completed, total);
	// TodoEmpty; High marks a high-priority item.
	Todo, TodoDone, TodoEmpty, High string
	// Asked heads the questions of one call (their headers joined by
	// Join, how it ended), and how
	// it ended: answered, declined, by the headless policy (%s), not
	// answered, closed before an answer; Answer is a question with its
	// answer (header, question, answer), Unanswered one without (header,
	// question); Skipped and OwnWords (%s) are answers, OwnWordsOver the
	// user's words with the options they replace (words, options).
	Asked, Join, Answered, Declined, Policy, Open, Failed, Answer, Unanswered, Skipped, OwnWords, OwnWordsOver string
}

// PlansWords are the words of /plans and of how each review ended.
type PlansWords struct {
	// None and Header list the plans; Bad refuses a number that names
	// none; Questions heads the questions asked.
	None, Header, Bad, Questions string
	// How reviews ended.
	Approved, Edited, ApprovedComments, ApprovedCleared, ApprovedWith, KeepPlanning, Dismissed,
	Cancelled, Open, Unanswered, Abandoned, Saved, Refused, Reloaded, Unknown, Changed, Reopened string
}

// UIWords are the terminal UI's own words.
type UIWords struct {
	// HintIdle and HintBusy list the keys on the status line; Working is
	// the spinner (frame, elapsed); WaitingReview replaces it during a
	// plan review, WaitingAnswer during another question with a menu (a
	// consent).
	HintIdle, HintBusy, Working, Cancelling, InterruptAgain, Placeholder, WaitingReview, WaitingAnswer string
	// ModelStatus names the model on the status line.
	ModelStatus string
	// MoreBelow ends a page that does not hold the whole plan under
	// review (%d: the lines below).
	MoreBelow string
	// ReasoningFolded (lines), ReasoningShown and Thinking show the
	// model's thinking.
	ReasoningFolded, ReasoningShown, Thinking string
	// Help lists the keys and the commands.
	HelpKeys, HelpCommands string
	HelpLines, HelpReview  []string
}

// ConsoleWords are the line console's own words: its prompts and menus.
type ConsoleWords struct {
	// Prompt shows the mode ([%s] › ); PromptPending a switch waiting;
	// PromptNone a host without plan mode.
	Prompt, PromptPending, PromptNone string
	// PromptReview, PromptAnswer (keys), PromptFeedback, PromptComments,
	// PromptEdit, PromptAsk and PromptAskMulti ask for a line.
	PromptReview, PromptAnswer, PromptFeedback, PromptComments, PromptEdit, PromptAsk, PromptAskMulti string
	// MenuHead (title), MenuText (question), MenuOption (key, label,
	// description) and MenuEnd frame a menu.
	MenuHead, MenuText, MenuOption, MenuEnd string
	// AskMulti and AskOther explain a question from the model; AskOne and
	// AskRange refuse an answer.
	AskMulti, AskOther, AskOne, AskRange string
	// EditHow explains typing an edit; EditUnchanged reports none.
	EditHow, EditUnchanged string
	// BadAnswer lists the keys; Early refuses a line typed before the
	// question showed.
	BadAnswer, Early string
	// Cancelling, Idle and Bye answer Ctrl-C.
	Cancelling, Idle, Bye string
	// HelpHeader, HelpCommand, HelpPlans, HelpHelp and HelpQuit are /help.
	HelpHeader, HelpCommand, HelpPlans, HelpHelp, HelpQuit string
	// InputEnded is why a question closed at the end of the input.
	InputEnded string
}

// ACPWords are what an editor shows over the Agent Client Protocol.
type ACPWords struct {
	// The session modes and the config option that selects them.
	ModeDefault, ModeDefaultDesc, ModePlan, ModePlanDesc, ConfigMode, ConfigModeDesc string
	// Question titles questions from the model; ToolFailed a failed call.
	Question, ToolFailed string
	// Option joins an option's label and description into one name;
	// Answer names an option of a question from the model (%s: that
	// name), so that none reads as an option of a review.
	Option, Answer string
	// ClarifyOne and ClarifyOther say what the protocol cannot carry;
	// Skip skips a question.
	ClarifyOne, ClarifyOther, Skip string
	// KeepPlanning describes Keep planning, which carries no feedback
	// over the protocol.
	KeepPlanning string
	// ToolRead, ToolList and ToolWrite title the workspace tools' calls
	// (%s: the path); ToolSearch too (the pattern, the path).
	ToolRead, ToolList, ToolSearch, ToolWrite string
	// UnknownCommand answers a prompt that names no command (the name,
	// the commands); NoCommands stands for no commands.
	UnknownCommand, NoCommands string
}

// PageWords are the HTML page's and inspect's words.
type PageWords struct {
	// Title names the page (%s: the session); Session heads inspect's
	// text (session, events); State ends it (plan mode, pending).
	Title, Session, State string
	// Plans heads the approved plans; NoPlans, Reopened, ExecuteWith (%s:
	// the model).
	Plans, NoPlans, Reopened, ExecuteWith string
	// Steps, NoSteps, Summary, Deviation, DeviationStep (%d).
	Steps, NoSteps, Summary, Deviation, DeviationStep string
	// Todo, NoTodo; Questions heads the questions asked.
	Todo, NoTodo, Questions string
	// Models heads the models the steps went to: a run of one step
	// (turn, step) or several (turn, first, last), in the default mode
	// or plan mode, and a change of model (from, to).
	Models, ModelStep, ModelSteps, InDefault, InPlan, ModelSwitch string
	// Yes and No answer inspect's questions.
	Yes, No string
}

// DemoWords are the demo's own lines.
type DemoWords struct {
	// Start names the scene played; Failed says it did not end as
	// scripted; Kept and Removed say what became of its directory.
	Start, Failed, Kept, Removed string
}

// For picks the catalog for a language: lang is a flag value ("en", "zh",
// or "" for the environment) and env the values of LC_ALL, LC_MESSAGES and
// LANG, in that order of precedence. Chinese for "zh…", English otherwise.
func For(lang string, env ...string) *Catalog {
	if lang == "" {
		for _, v := range env {
			if v != "" {
				lang = v
				break
			}
		}
	}
	if strings.HasPrefix(strings.ToLower(lang), "zh") {
		return Chinese
	}
	return English
}
