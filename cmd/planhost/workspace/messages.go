package workspace

// Tool names, as the model sees them.
const (
	// ListFilesName is the name of the directory listing tool.
	ListFilesName = "list_files"
	// ReadFileName is the name of the file reading tool.
	ReadFileName = "read_file"
	// SearchName is the name of the text search tool.
	SearchName = "search"
	// WriteFileName is the name of the file writing tool.
	WriteFileName = "write_file"
)

// Tool descriptions, as the model sees them.
const (
	listFilesDescription = "List the files and directories under a directory of the workspace. " +
		"Paths are relative to the workspace root; directories end with a slash. " +
		"Read-only."
	readFileDescription = "Read a text file of the workspace and return its contents. " +
		"Read-only."
	searchDescription = "Search the text files under a path of the workspace for a substring " +
		"(or a regular expression with regexp: true) and return matching lines as path:line: text. " +
		"Read-only."
	writeFileDescription = "Create or replace a file of the workspace with the given content. " +
		"Missing parent directories are created."
)

// Texts of tool results and errors. %s and %d verbs are filled in by the
// tools; paths are always workspace-relative.
const (
	msgNoEntries       = "(empty directory)"
	msgListTruncated   = "[listing truncated after %d entries; list a subdirectory]"
	msgNoMatches       = "no matches for %q under %s"
	msgSearchTruncated = "[results truncated after %d matches; narrow the search]"
	msgSearchSkipped   = "[skipped %d files that are binary or over %d bytes]"
	msgWrote           = "wrote %d bytes to %s"
	msgCreated         = "created %s (%d bytes)"

	msgAbsolute   = "path %q is absolute; use a path relative to the workspace root"
	msgDotDot     = "path %q contains \"..\"; use a path inside the workspace"
	msgNUL        = "path %q contains a NUL byte"
	msgUTF8       = "path %q is not valid UTF-8"
	msgEscapes    = "path %q leads outside the workspace"
	msgNotFound   = "%s: no such file or directory"
	msgPermission = "%s: permission denied"
	msgIsDir      = "%s is a directory; use list_files"
	msgNotDir     = "%s is not a directory"
	msgNotRegular = "%s is not a regular file"
	msgLinkLoop   = "%s: a symbolic link loop (too many levels of symbolic links)"
	msgReadLarge  = "%s is %d bytes; read_file returns at most %d bytes (use search to find the part you need)"
	msgBinary     = "%s looks like a binary file; read_file returns text only"
	msgWriteLarge = "content is %d bytes; write_file accepts at most %d bytes"
	msgRootPath   = "path %q names the workspace root, not a file"
	msgPattern    = "pattern: %s"
	msgPatternLen = "pattern is %d bytes; at most %d bytes are allowed"
	msgEmptyPat   = "pattern is empty"
	msgInput      = "arguments: %s"
	msgMissing    = "arguments: %q is required"
)

// Texts of paths the host keeps to itself.
const (
	msgForbidden = "path %q leads into the host's own state (session logs, plans under review); " +
		"the workspace tools never touch it"
	// msgRootForbidden: the workspace root and the forbidden directory
	// holding it.
	msgRootForbidden = "the workspace %s lies inside %s, where the host keeps its own state; open a workspace outside it"
)
