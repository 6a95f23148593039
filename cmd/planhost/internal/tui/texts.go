package tui

import (
	"fmt"
	"strings"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/planentry"
	"github.com/dshgo/planmode/plansteps"
)

// Catalog holds the words of the control UI in one language: review labels,
// key hints, status lines and replies to the user. Option identifiers in
// the log and the protocol stay as the plugin names them; model-facing
// text is never translated.
type Catalog struct {
	// Lang is the catalog's language tag ("en", "zh").
	Lang string

	ModeDefault, ModePlan string
	// ModeSwitch shows a queued switch: "%s → %s".
	ModeSwitch string
	HintIdle   string
	HintBusy   string
	// Working is the spinner text: frame, elapsed time.
	Working    string
	Cancelling string
	// InterruptAgain asks for a second Ctrl-C to exit.
	InterruptAgain string
	Placeholder    string

	// ReviewTitle heads the plan under review: "%s" is its title.
	ReviewTitle    string
	ReviewQuestion string
	// ReviewChangedQuestion heads a review asked again because the plan
	// changed while the user reviewed it.
	ReviewChangedQuestion string
	ReviewChanged         string
	ReviewFullPlan        string
	ReviewEditedNote      string
	ReviewHint            string
	FeedbackTitle         string
	FeedbackHint          string
	OptApprove            string
	OptKeepPlanning       string
	OptEdit               string
	OptDismiss            string
	OptApproveDesc        string
	OptKeepDesc           string
	OptEditDesc           string
	OptDismissDesc        string
	QuestionHint          string
	// The plan-review companion's extra answers.
	OptApproveComments, OptApproveCommentsDesc string
	OptApproveClear, OptApproveClearDesc       string
	OptAbandon, OptAbandonDesc                 string
	// CommentsTitle heads the editor of Approve with comments;
	// CommentsNeeded says the comments are empty.
	CommentsTitle, CommentsNeeded string
	// ReviewPlanFile shows the plan file's path: "%s".
	ReviewPlanFile string

	// ReviewKeysIgnored says keys typed as the review appeared (or
	// typing that is none of its keys) were ignored; ReviewChooseFirst
	// says Enter needs an answer moved to first.
	ReviewKeysIgnored, ReviewChooseFirst string

	// Outcomes of a plan review, as /plans and the transcript say them.
	OutcomeApproved, OutcomeKeepPlanning, OutcomeEdited, OutcomeDismissed, OutcomeCancelled, OutcomeOpen string
	// OutcomeUnanswered is a plan of a resumed session whose review the
	// log shows no answer to (the program stopped during it).
	OutcomeUnanswered string
	// Outcomes only the log shows (inspect): abandoned by an extension,
	// refused before the user saw it, closed when plan mode restarted.
	OutcomeAbandoned, OutcomeRefused, OutcomeReloaded string
	// OutcomeUnknown is a review whose result logs no outcome the program
	// knows (a log written before outcomes were logged).
	OutcomeUnknown string
	// Outcomes of plan-review's approvals.
	OutcomeApprovedComments, OutcomeApprovedCleared string
	// ReviewAnswered reports the answer: "%s" is the outcome.
	ReviewAnswered string
	// OutcomeChanged is the outcome of a review whose answer was not
	// taken because the plan changed meanwhile; ReviewChangedNote says so
	// in the transcript when the review is asked again.
	OutcomeChanged, ReviewChangedNote string
	// ReviewCancelled says the review closed without an answer (the turn
	// was cancelled).
	ReviewCancelled string
	EditorFailed    string
	EditorUnchanged string

	ReasoningCollapsed string
	ReasoningExpanded  string
	Thinking           string

	PlansNone   string
	PlansHeader string
	PlansLine   string
	PlansBad    string

	HelpKeys     string
	HelpCommands string
	HelpLines    []string
	UnknownCmd   string
	CmdFailed    string
	SendFailed   string
	Queued       string
	// SessionBusy: another process runs the turn; host, pid, since.
	SessionBusy string
	// LeaseLost: another process took the turn over from this one.
	LeaseLost  string
	Bye        string
	ModeFailed string

	// WaitingReview and WaitingAnswer replace the spinner while a plan
	// review or another question waits for the user.
	WaitingReview, WaitingAnswer string
	// OptSave and OptSaveDesc are "Save plan and stop"; OutcomeSaved is
	// how the transcript and /plans say it ended.
	OptSave, OptSaveDesc, OutcomeSaved string
	// OptApproveWith is "Approve and execute with MODEL" (%s is the
	// model's name).
	OptApproveWith, OptApproveWithDesc string
	// ReviewChangedSummary stands for a collapsed diff: lines added and
	// removed; ReviewChangedShown heads the diff when it is shown;
	// ReviewHintDiff is ReviewHint when the review has a diff.
	ReviewChangedSummary, ReviewChangedShown, ReviewHintDiff string
	// HelpReview lists the review's keys in /help.
	HelpReview []string
	// The session's lines: mode switches, a switch waiting for the next
	// step ("%s" is the mode), the request header (verbose: reason,
	// sections), the assistant's label, a compaction, a turn that did not
	// complete ("%d", reason) and the reasons.
	ModeOnLine, ModeOffLine, PendingLine, HeaderLine, AssistantLabel, CompactedLine string
	TurnEndLine, TurnCancelled, TurnFailed, TurnBlocked                             string
	// ReviewRefused is the result line of a plan refused before the
	// review (the reason is for the model; -verbose shows it).
	ReviewRefused string
	// CardKinds are the words for a card's kind ("plan"); other kinds
	// are shown as they are. CardLine heads a card: kind, title.
	CardKinds map[string]string
	CardLine  string
	// The intro and the last line: the session and its file, the model
	// and its endpoint, a resumed session's recap header and the session
	// file after the UI closed.
	SessionLine, ModelAtLine, RecapLine, SessionFileLine string
	// PlanModelAtLine names the plan-mode model and its endpoint, when
	// one is configured; ModelLine says which model answers from a step
	// on; ModelStatus is the model in the status line.
	PlanModelAtLine, ModelLine, ModelStatus string
	// PlanOn, PlanOnNext, PlanOff and PlanOffNext are the /plan command's
	// reply, from the mode after it.
	PlanOn, PlanOnNext, PlanOff, PlanOffNext string
	// PlanReopened is the reply of "/plan reopen" (%d: the plan's number);
	// OutcomeReopened marks the reopened plan in /plans.
	PlanReopened, OutcomeReopened string
	// Commands are the words for host commands by name: hint and
	// description; a command not listed shows the host's own.
	Commands map[string]CommandWords
	// Questions are the companions' own questions in the catalog's
	// words, by the request's Intent.Kind (plan-entry's consent, a
	// plan-steps step change); a question the catalog lacks shows the
	// plugin's text.
	Questions map[string]QuestionWords
	// FieldLine is one labelled value of a question (%s: the label, the
	// value).
	FieldLine string
}

// QuestionWords are a companion question's words in a catalog: the
// question and its options' labels and descriptions. Options are keyed
// by the option's role; the option's label stays the answer's value: the
// protocol identifier never changes with the language. Fields are the labels of
// the question's fields by Key: when every field of the question has one,
// the fields show instead of the Detail, which is shown as the plugin
// wrote it otherwise.
type QuestionWords struct {
	Question string
	Options  map[host.Role]OptionWords
	Fields   map[string]string
}

// OptionWords are an option's label and description in a catalog.
type OptionWords struct {
	Label, Description string
}

// CommandWords are a host command's hint and description in a catalog.
type CommandWords struct {
	Hint, Description string
}

// English is the English catalog.
var English = &Catalog{
	Lang:           "en",
	ModeDefault:    "default",
	ModePlan:       "plan",
	ModeSwitch:     "%s → %s",
	HintIdle:       "shift+tab plan mode · /help",
	HintBusy:       "esc cancel · shift+tab plan mode",
	Working:        "%s working %s",
	Cancelling:     "cancelling…",
	InterruptAgain: "Press Ctrl-C again to exit.",
	Placeholder:    "Type a message (alt+enter for a new line, /help for keys)",

	ReviewTitle:    "Plan review: %s",
	ReviewQuestion: "The model presents this plan. What now?",
	ReviewChangedQuestion: "The plan changed while you were reviewing it, so your answer was not taken. " +
		"What changed is shown; review the plan as it is now. What now?",
	ReviewChanged:    "What changed since the previous plan",
	ReviewFullPlan:   "The plan",
	ReviewEditedNote: "You edited this plan; the edited text is what you approve.",
	ReviewHint:       "↑/↓ and enter, or the key in brackets · pgup/pgdown scroll the plan",
	FeedbackTitle:    "Feedback for the model (what to change)",
	FeedbackHint:     "enter send · alt+enter new line · esc back to the choices",
	OptApprove:       "Approve",
	OptKeepPlanning:  "Keep planning",
	OptEdit:          "Edit",
	OptDismiss:       "Dismiss",
	OptApproveDesc:   "leave plan mode and carry the plan out",
	OptKeepDesc:      "stay in plan mode and tell the model what to change",
	OptEditDesc:      "open the plan in your editor",
	OptDismissDesc:   "close the review and talk to the model instead",
	QuestionHint:     "↑/↓ and enter, or the key in brackets",

	OptApproveComments:     "Approve with comments",
	OptApproveCommentsDesc: "carry the plan out, with your comments for the model",
	OptApproveClear:        "Approve and clear",
	OptApproveClearDesc:    "carry the plan out on a fresh context holding only the plan",
	OptAbandon:             "Abandon",
	OptAbandonDesc:         "drop the plan and leave plan mode",
	CommentsTitle:          "Comments for the model (the plan is approved)",
	CommentsNeeded:         "Write a comment, or press esc and choose Approve.",
	ReviewPlanFile:         "Plan file: %s",

	ReviewKeysIgnored: "Keys ignored: the review takes keys once the keyboard has been still for a moment.",
	ReviewChooseFirst: "Nothing is selected: move to an answer with ↑/↓, or press its key.",

	OutcomeApproved:     "approved",
	OutcomeKeepPlanning: "sent back with feedback",
	OutcomeEdited:       "approved as you edited it",
	OutcomeDismissed:    "dismissed",
	OutcomeCancelled:    "closed when the turn was cancelled",
	OutcomeOpen:         "waiting for your review",
	OutcomeUnanswered:   "not answered before the session stopped",
	OutcomeAbandoned:    "abandoned",
	OutcomeRefused:      "refused before the review",
	OutcomeReloaded:     "closed when plan mode restarted",
	OutcomeUnknown:      "answered; the log does not say how",

	OutcomeApprovedComments: "approved with your comments",
	OutcomeApprovedCleared:  "approved on a fresh context",
	ReviewAnswered:          "Plan %s.",
	OutcomeChanged:          "not taken: the plan changed during the review",
	ReviewChangedNote:       "The plan changed while you were reviewing it, so that answer was not taken; review it again.",
	ReviewCancelled:         "The plan review closed: the turn was cancelled.",
	EditorFailed:            "The editor failed: %v",
	EditorUnchanged:         "The plan was not changed in the editor.",

	ReasoningCollapsed: "✻ thinking (%d lines) · ctrl+o to show",
	ReasoningExpanded:  "✻ thinking · ctrl+o to hide",
	Thinking:           "✻ thinking…",

	PlansNone:   "No plan was presented in this session yet.",
	PlansHeader: "Plans presented in this session (/plans N shows one):",
	PlansLine:   "  %d. %s — %s",
	PlansBad:    "No plan %q; /plans lists them.",

	HelpKeys:     "Keys:",
	HelpCommands: "Commands:",
	HelpLines: []string{
		"  enter            send the message",
		"  alt+enter        new line (ctrl+j too); a paste keeps its lines",
		"  shift+tab        switch plan mode (queued while the model works)",
		"  esc              cancel the running turn",
		"  ctrl+c           cancel; twice to exit",
		"  ctrl+d           exit (on an empty line)",
		"  ctrl+o           show or hide the model's thinking",
		"  up/down          earlier messages (from the first or last line)",
		"  pgup/pgdown      scroll the transcript",
		"  /plans [N]       list the plans of this session, or show plan N",
		"  /help            this list",
		"  /quit            exit",
	},
	UnknownCmd:  "Unknown command %s; /help lists the commands.",
	CmdFailed:   "/%s failed: %v",
	SendFailed:  "Could not send the message: %v",
	Queued:      "Queued for the model's next step.",
	SessionBusy: "Session busy on %s (pid %d) since %s UTC; your message is queued for its turn.",
	LeaseLost:   "Another process took over this session's turn (this process was paused or cut off past its lease); its late writes were refused.",
	Bye:         "bye",
	ModeFailed:  "Could not switch plan mode: %v",

	WaitingReview:        "waiting for your review",
	WaitingAnswer:        "waiting for your answer",
	OptSave:              "Save plan and stop",
	OptSaveDesc:          "keep the plan, leave plan mode, carry nothing out",
	OptApproveWith:       "Approve and execute with %s",
	OptApproveWithDesc:   "leave plan mode and carry out the plan with this model",
	OutcomeSaved:         "saved; nothing was carried out",
	ReviewChangedSummary: "What changed since the previous plan: %d lines added, %d removed · v shows it",
	ReviewChangedShown:   "What changed since the previous plan (v hides it)",
	ReviewHintDiff:       "↑/↓ and enter, or the key in brackets · v what changed · pgup/pgdown scroll the plan",
	HelpReview: []string{
		"In a plan review:",
		"  a / k / e / d    approve / keep planning (write feedback) / edit / dismiss",
		"  s                save the plan and stop: keep it, leave plan mode, carry nothing out",
		"  w / c / x        approve with comments / approve and clear / abandon (plan-review)",
		"  v                show or hide what changed since the previous plan",
		"  ↑/↓ enter        choose an answer · pgup/pgdown scroll the plan",
	},
	ModeOnLine:      "── plan mode on ──",
	ModeOffLine:     "── plan mode off: default mode ──",
	PendingLine:     "  · switch pending: %s mode from the next step",
	HeaderLine:      "  · request %s: sections %s",
	AssistantLabel:  "assistant: ",
	CompactedLine:   "  · transcript compacted",
	TurnEndLine:     "  · turn %d ended: %s",
	TurnCancelled:   "cancelled",
	TurnFailed:      "error",
	TurnBlocked:     "blocked",
	ReviewRefused:   "  ← the plan was refused before the review; the model was told why",
	CardKinds:       map[string]string{},
	CardLine:        "  ▍%s: %s",
	SessionLine:     "session %s (%s)",
	ModelAtLine:     "model %s at %s",
	PlanModelAtLine: "plan-mode model %s at %s",
	ModelLine:       "── model %s ──",
	ModelStatus:     "model %s",
	RecapLine:       "Resumed session %s (%d events). The last exchanges:",
	SessionFileLine: "session file: %s",
	PlanOn:          "Plan mode is on.",
	PlanOnNext:      "Plan mode is on from the next step of the running turn.",
	PlanReopened:    "Plan %d is reopened as the working draft; the next review shows what changed from it.",
	OutcomeReopened: "reopened as the working draft",
	PlanOff:         "Plan mode is off.",
	PlanOffNext:     "Plan mode ends from the next step of the running turn.",
	Commands:        map[string]CommandWords{},
	FieldLine:       "%s: %s",
	Questions: map[string]QuestionWords{
		planentry.Purpose: {Fields: map[string]string{planentry.FieldGoal: "Goal", planentry.FieldScope: "Scope"}},
		plansteps.ModifyPurpose: {Fields: map[string]string{
			plansteps.FieldStep: "Step", plansteps.FieldPlan: "Plan", plansteps.FieldReason: "Reason",
			plansteps.FieldBefore: "Before", plansteps.FieldBeforeFiles: "Files before", plansteps.FieldBeforeVerification: "Verify before",
			plansteps.FieldAfter: "After", plansteps.FieldAfterFiles: "Files after", plansteps.FieldAfterVerification: "Verify after",
		}},
	},
}

// Chinese is the Chinese catalog.
var Chinese = &Catalog{
	Lang:           "zh",
	ModeDefault:    "默认",
	ModePlan:       "计划",
	ModeSwitch:     "%s → %s",
	HintIdle:       "shift+tab 计划模式 · /help",
	HintBusy:       "esc 取消 · shift+tab 计划模式",
	Working:        "%s 工作中 %s",
	Cancelling:     "正在取消…",
	InterruptAgain: "再按一次 Ctrl-C 退出。",
	Placeholder:    "输入消息（alt+enter 换行，/help 查看按键）",

	ReviewTitle:    "计划审阅：%s",
	ReviewQuestion: "模型提交了这份计划。接下来？",
	ReviewChangedQuestion: "你审阅期间计划被改动了，所以你的回答没有被采纳。" +
		"下面显示了改动之处；请审阅现在的计划。接下来？",
	ReviewChanged:    "与上一版计划相比的改动",
	ReviewFullPlan:   "计划全文",
	ReviewEditedNote: "你编辑了这份计划；批准的是编辑后的文本。",
	ReviewHint:       "↑/↓ 加回车，或按方括号里的键 · pgup/pgdown 滚动计划",
	FeedbackTitle:    "给模型的反馈（要改什么）",
	FeedbackHint:     "回车发送 · alt+enter 换行 · esc 返回选项",
	OptApprove:       "批准",
	OptKeepPlanning:  "继续计划",
	OptEdit:          "编辑",
	OptDismiss:       "关闭",
	OptApproveDesc:   "退出计划模式并执行计划",
	OptKeepDesc:      "留在计划模式，告诉模型要改什么",
	OptEditDesc:      "在编辑器中打开计划",
	OptDismissDesc:   "关闭审阅，改为直接和模型对话",
	QuestionHint:     "↑/↓ 加回车，或按方括号里的键",

	OptApproveComments:     "附意见批准",
	OptApproveCommentsDesc: "执行计划，并把你的意见交给模型",
	OptApproveClear:        "批准并清空上下文",
	OptApproveClearDesc:    "在只含计划的新上下文中执行计划",
	OptAbandon:             "放弃",
	OptAbandonDesc:         "丢弃计划并退出计划模式",
	CommentsTitle:          "给模型的意见（计划已批准）",
	CommentsNeeded:         "请写下意见，或按 esc 后选择批准。",
	ReviewPlanFile:         "计划文件：%s",

	ReviewKeysIgnored: "已忽略按键：键盘静止片刻后，审阅才接受按键。",
	ReviewChooseFirst: "尚未选中任何选项：请用 ↑/↓ 移到一个回答，或按它的键。",

	OutcomeApproved:     "已批准",
	OutcomeKeepPlanning: "已附反馈退回",
	OutcomeEdited:       "已按你的编辑批准",
	OutcomeDismissed:    "已关闭",
	OutcomeCancelled:    "回合取消，审阅已关闭",
	OutcomeOpen:         "等待你审阅",
	OutcomeUnanswered:   "会话停止前未作答",
	OutcomeAbandoned:    "已放弃",
	OutcomeRefused:      "审阅前即被拒绝",
	OutcomeReloaded:     "计划模式重启时关闭",
	OutcomeUnknown:      "已作答；日志未记录结果",

	OutcomeApprovedComments: "已附意见批准",
	OutcomeApprovedCleared:  "已批准并清空上下文",
	ReviewAnswered:          "计划%s。",
	OutcomeChanged:          "未采纳：审阅期间计划被改动",
	ReviewChangedNote:       "你审阅期间计划被改动了，所以刚才的回答没有被采纳；请再次审阅。",
	ReviewCancelled:         "计划审阅已关闭：回合被取消。",
	EditorFailed:            "编辑器出错：%v",
	EditorUnchanged:         "计划在编辑器中没有改动。",

	ReasoningCollapsed: "✻ 思考（%d 行）· ctrl+o 展开",
	ReasoningExpanded:  "✻ 思考 · ctrl+o 收起",
	Thinking:           "✻ 思考中…",

	PlansNone:   "本会话还没有提交过计划。",
	PlansHeader: "本会话提交过的计划（/plans N 查看其中一份）：",
	PlansLine:   "  %d. %s — %s",
	PlansBad:    "没有计划 %q；/plans 列出全部。",

	HelpKeys:     "按键：",
	HelpCommands: "命令：",
	HelpLines: []string{
		"  enter            发送消息",
		"  alt+enter        换行（也可用 ctrl+j）；粘贴保留换行",
		"  shift+tab        切换计划模式（模型工作时排队）",
		"  esc              取消正在运行的回合",
		"  ctrl+c           取消；连按两次退出",
		"  ctrl+d           退出（输入为空时）",
		"  ctrl+o           显示或隐藏模型的思考",
		"  up/down          之前的消息（在首行或末行时）",
		"  pgup/pgdown      滚动记录",
		"  /plans [N]       列出本会话的计划，或查看第 N 份",
		"  /help            本列表",
		"  /quit            退出",
	},
	UnknownCmd:  "未知命令 %s；/help 列出全部命令。",
	CmdFailed:   "/%s 失败：%v",
	SendFailed:  "消息发送失败：%v",
	Queued:      "已排队，模型下一步时处理。",
	SessionBusy: "会话正在 %s（pid %d）上运行，自 %s UTC 起；你的消息已排入它的当前轮次。",
	LeaseLost:   "另一个进程接管了本会话的当前轮次（本进程暂停或断开超过了租约时间）；本进程迟到的写入已被拒绝。",
	Bye:         "再见",
	ModeFailed:  "无法切换计划模式：%v",

	WaitingReview:        "等待你审阅",
	WaitingAnswer:        "等待你回答",
	OptSave:              "保存计划并停止",
	OptSaveDesc:          "保留计划，退出计划模式，不执行任何步骤",
	OptApproveWith:       "批准并用 %s 执行",
	OptApproveWithDesc:   "退出计划模式，用这个模型执行计划",
	OutcomeSaved:         "已保存，未执行",
	ReviewChangedSummary: "与上一版计划相比的改动：新增 %d 行，删除 %d 行 · 按 v 查看",
	ReviewChangedShown:   "与上一版计划相比的改动（按 v 收起）",
	ReviewHintDiff:       "↑/↓ 加回车，或按方括号里的键 · v 查看改动 · pgup/pgdown 滚动计划",
	HelpReview: []string{
		"计划审阅中：",
		"  a / k / e / d    批准 / 继续计划（写反馈）/ 编辑 / 关闭",
		"  s                保存计划并停止：保留计划，退出计划模式，不执行",
		"  w / c / x        附意见批准 / 批准并清空上下文 / 放弃（计划审阅插件）",
		"  v                显示或隐藏与上一版计划相比的改动",
		"  ↑/↓ 回车         选择回答 · pgup/pgdown 滚动计划",
	},
	ModeOnLine:      "── 计划模式开启 ──",
	ModeOffLine:     "── 计划模式关闭：默认模式 ──",
	PendingLine:     "  · 切换待生效：从下一步起为%s模式",
	HeaderLine:      "  · 请求（%s）：提示词段 %s",
	AssistantLabel:  "助手：",
	CompactedLine:   "  · 记录已压缩",
	TurnEndLine:     "  · 第 %d 回合结束：%s",
	TurnCancelled:   "已取消",
	TurnFailed:      "失败",
	TurnBlocked:     "被阻止",
	ReviewRefused:   "  ← 计划在审阅前被拒绝；已告知模型原因",
	CardKinds:       map[string]string{"plan": "计划"},
	CardLine:        "  ▍%s：%s",
	SessionLine:     "会话 %s（%s）",
	ModelAtLine:     "模型 %s，端点 %s",
	PlanModelAtLine: "计划模式模型 %s，端点 %s",
	ModelLine:       "── 模型 %s ──",
	ModelStatus:     "模型 %s",
	RecapLine:       "已恢复会话 %s（%d 个事件）。最近的对话：",
	SessionFileLine: "会话文件：%s",
	PlanOn:          "计划模式已开启。",
	PlanOnNext:      "计划模式将从运行中回合的下一步开启。",
	PlanReopened:    "第 %d 个计划已重新打开，作为工作草稿；下次审阅会显示相对它的改动。",
	OutcomeReopened: "已重新打开，作为工作草稿",
	PlanOff:         "计划模式已关闭。",
	PlanOffNext:     "计划模式将从运行中回合的下一步结束。",
	FieldLine:       "%s：%s",
	Questions: map[string]QuestionWords{
		planentry.Purpose: {
			Question: "助手请求先制定计划再做修改。切换到计划模式吗？",
			Options: map[host.Role]OptionWords{
				host.RoleApprove: {Label: "进入计划模式", Description: "先只读探索，在做任何修改前商定计划。"},
				host.RoleDecline: {Label: "拒绝", Description: "在默认模式下继续，不经过计划审阅。"},
			},
			Fields: map[string]string{planentry.FieldGoal: "目标", planentry.FieldScope: "范围"},
		},
		plansteps.ModifyPurpose: {
			Question: "修改已批准计划中的这一步吗？",
			Options: map[host.Role]OptionWords{
				host.RoleApprove: {Label: "批准修改", Description: "这一步按所示内容修改；模型接着执行新的这一步。"},
				host.RoleDecline: {Label: "保留原步骤", Description: "这一步保持批准时的样子；写下原因，模型会读到。"},
			},
			Fields: map[string]string{
				plansteps.FieldStep: "步骤", plansteps.FieldPlan: "计划", plansteps.FieldReason: "原因",
				plansteps.FieldBefore: "修改前", plansteps.FieldBeforeFiles: "修改前的文件", plansteps.FieldBeforeVerification: "修改前的验证",
				plansteps.FieldAfter: "修改后", plansteps.FieldAfterFiles: "修改后的文件", plansteps.FieldAfterVerification: "修改后的验证",
			},
		},
	},
	Commands: map[string]CommandWords{
		"plan": {Hint: "[off|reopen [N]|消息]", Description: "切换计划模式：/plan 进入，/plan off 退出，/plan reopen [N] 进入并以第 N 个计划（默认：最后批准的）为草稿，/plan <消息> 进入并发送消息"},
	},
}

// CatalogFor picks the catalog for a language: lang is a flag value ("en",
// "zh", or "" for the environment) and env the LC_ALL, LC_MESSAGES and LANG
// values in that order of precedence.
func CatalogFor(lang string, env ...string) *Catalog {
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

// ExitOutcome is the catalog's words for how an exit_plan_mode call
// ended, as its result logs it; edited reports a plan the user edited
// before approving it. A result that logs no outcome (one written before
// outcomes were logged) or one this program does not know is unknown.
func (c *Catalog) ExitOutcome(o planmode.ExitOutcome, edited bool) string {
	switch o {
	case planmode.ExitRefused:
		return c.OutcomeRefused
	case planmode.ExitApproved:
		if edited {
			return c.OutcomeEdited
		}
		return c.OutcomeApproved
	case planmode.ExitAbandoned:
		return c.OutcomeAbandoned
	case planmode.ExitKeepPlanning:
		return c.OutcomeKeepPlanning
	case planmode.ExitDismissed:
		return c.OutcomeDismissed
	case planmode.ExitReloaded:
		return c.OutcomeReloaded
	case planmode.ExitReviewFailed:
		return c.OutcomeCancelled
	}
	return c.OutcomeUnknown
}

// optionLabel is the catalog's words for a plan review option's role
// ("" for a role it has no words for).
func (c *Catalog) optionLabel(role host.Role) (string, string) {
	switch role {
	case host.RoleApprove:
		return c.OptApprove, c.OptApproveDesc
	case host.RoleKeepPlanning:
		return c.OptKeepPlanning, c.OptKeepDesc
	case host.RoleApproveWithComments:
		return c.OptApproveComments, c.OptApproveCommentsDesc
	case host.RoleApproveAndClear:
		return c.OptApproveClear, c.OptApproveClearDesc
	case host.RoleAbandon:
		return c.OptAbandon, c.OptAbandonDesc
	case host.RoleSave:
		return c.OptSave, c.OptSaveDesc
	}
	return "", ""
}

// fields are the lines of q's fields in the catalog's words, each value
// escaped by sanitize; nil when q has no fields or one lacks a label (the
// Detail shows then).
func (c *Catalog) fields(req host.AskRequest, q host.Question, sanitize func(string) string) []string {
	w, ok := c.question(req)
	if !ok || len(q.Fields) == 0 {
		return nil
	}
	lines := make([]string, 0, len(q.Fields))
	for _, f := range q.Fields {
		label, ok := w.Fields[f.Key]
		if !ok {
			return nil
		}
		lines = append(lines, fmt.Sprintf(c.FieldLine, label, sanitize(f.Value)))
	}
	return lines
}

// question is the catalog's words for the question of req shown now
// (ok false: show the plugin's own).
func (c *Catalog) question(req host.AskRequest) (QuestionWords, bool) {
	if len(req.Questions) != 1 {
		return QuestionWords{}, false
	}
	w, ok := c.Questions[req.Purpose]
	return w, ok
}

// CardKind is the catalog's word for a card's kind.
func (c *Catalog) CardKind(kind string) string {
	if w, ok := c.CardKinds[kind]; ok {
		return w
	}
	return kind
}

// PlanReply is the /plan command's reply for the mode after it.
func (c *Catalog) PlanReply(m Mode) string {
	switch {
	case m.target() && m.Active:
		return c.PlanOn
	case m.target():
		return c.PlanOnNext
	case m.Active:
		return c.PlanOffNext
	}
	return c.PlanOff
}

// Command is a host command's help in the catalog's words: the host's
// own hint and description unless the catalog has them.
func (c *Catalog) Command(h CommandHelp) CommandHelp {
	if w, ok := c.Commands[h.Name]; ok {
		h.Hint, h.Description = w.Hint, w.Description
	}
	return h
}
