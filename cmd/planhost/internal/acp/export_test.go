package acp

// CheckMessage exposes the wire check to the fuzz test and the benchmark.
func CheckMessage(line []byte) (msg, resp []byte) {
	msg, resp, _ = checkMessage(line)
	return msg, resp
}

// StopReason exposes the prompt's stop reason read from a log.
var StopReason = stopReason
