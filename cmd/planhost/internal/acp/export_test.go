package acp

// CheckMessage exposes the wire check to the fuzz test and the benchmark.
func CheckMessage(line []byte) (msg, resp []byte) {
	msg, resp, _ = checkMessage(line)
	return msg, resp
}
