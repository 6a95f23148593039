package todo

// Tool descriptions the model reads in every request.
const (
	// ReadToolDescription is the description of [ReadToolName].
	ReadToolDescription = "Read your todo list: every item with its id, content, status (pending, in_progress, " +
		"completed), priority (high, medium, low) and the created_at / updated_at timestamps. The list belongs to " +
		"you, not to this conversation: it carries over to later sessions, so read it when you resume work."
	// WriteToolDescription is the description of [WriteToolName].
	WriteToolDescription = "Replace your todo list with the complete list you pass in todos (not a patch: send " +
		"every item you want to keep). Keep a list only for work of three or more distinct steps; skip it for " +
		"a quick single change. Keep exactly one item in_progress while you work (never more than one), and " +
		"mark each item completed as soon as it is done, not in batches at the end. Items you stored before and " +
		"leave out are kept and marked completed; when every item you write is completed, the items you leave " +
		"out are dropped and the list starts from a clean slate. Ids must be unique; content is at most 4 KiB; " +
		"at most 200 items. Timestamps are set for you: created_at and updated_at in your input are ignored. " +
		"The result is the stored list."
)

// The tools' schemas.
const (
	// ReadInputSchema is the JSON Schema of todo_read's input: nothing.
	ReadInputSchema = `{"type":"object","properties":{},"additionalProperties":false}`
	// WriteInputSchema is the JSON Schema of todo_write's input.
	WriteInputSchema = `{"type":"object","properties":{"todos":{"type":"array","maxItems":200,` +
		`"description":"The complete list, in the order to show it.","items":{"type":"object","properties":{` +
		`"id":{"type":"string","description":"Unique id of the item; keep it when you rewrite the item."},` +
		`"content":{"type":"string","description":"What to do (at most 4 KiB)."},` +
		`"status":{"type":"string","enum":["pending","in_progress","completed"]},` +
		`"priority":{"type":"string","enum":["high","medium","low"]},` +
		`"created_at":{"type":"string","description":"Ignored: set by the plugin."},` +
		`"updated_at":{"type":"string","description":"Ignored: set by the plugin."}},` +
		`"required":["id","content","status","priority"],"additionalProperties":false}}},` +
		`"required":["todos"],"additionalProperties":false}`
	// ListSchema is the JSON Schema of both tools' results.
	ListSchema = `{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object","properties":{` +
		`"id":{"type":"string"},"content":{"type":"string"},` +
		`"status":{"type":"string","enum":["pending","in_progress","completed"]},` +
		`"priority":{"type":"string","enum":["high","medium","low"]},` +
		`"created_at":{"type":"string","format":"date-time"},"updated_at":{"type":"string","format":"date-time"}},` +
		`"required":["id","content","status","priority","created_at","updated_at"]}}},"required":["todos"]}`
)

// Model-facing tool errors; the host shows each as "Error: <text>".
const (
	textNoAgent        = "the todo list belongs to an agent, and this call came from no agent"
	textBadRead        = "todo_read takes no input: call it with {}"
	textBadWrite       = "the input must be {\"todos\": [...]} with the complete list; nothing was stored"
	textNotObject      = "the input is not a JSON object"
	textUnknownTop     = "unknown fields %s; the only field is \"todos\""
	textTooManyItems   = "\"todos\" has %d items, more than the %d allowed"
	textItem           = "item %d"
	textItemNotObject  = "is not a JSON object"
	textUnknownItem    = "unknown fields %s; an item has id, content, status and priority"
	textIDBlank        = "\"id\" is blank"
	textIDTooLong      = "\"id\" is %d bytes, more than %d"
	textIDControl      = "\"id\" holds control characters"
	textContentBlank   = "\"content\" is blank"
	textContentTooLong = "\"content\" is %d bytes, more than the %d-byte (4 KiB) limit"
	textContentControl = "\"content\" holds control characters (only line breaks and tabs are allowed)"
	textBadStatus      = "\"status\" is %q; want pending, in_progress or completed"
	textBadPriority    = "\"priority\" is %q; want high, medium or low"
	textDuplicateID    = "item %d has the id %q of item %d; ids must be unique"
	textTwoInProgress  = "items %d and %d are both in_progress; keep one item in progress and the others pending or completed"
	textResultTooLarge = "the list would hold %d items (%d written, %d kept from before and marked completed), " +
		"more than the %d allowed; nothing was stored: leave out fewer items, or write a list whose items are all " +
		"completed to drop the ones you leave out"
	textStoreFailed = "the todo list could not be stored"
	textReadFailed  = "the todo list could not be read"
	textBusy        = "the todo list kept changing under this write (another session of this agent is writing it); nothing was stored: read it and write again"
	textCorrupt     = "the stored todo list is not readable"
)

// Host-developer errors.
const (
	textMissingDocuments = "the host provides no agent document store (host.Documents), where the todo list is kept"
	textMissingTools     = "the host provides no tool registry (host.Tools)"
)
