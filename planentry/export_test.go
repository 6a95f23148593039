package planentry

// DecodeInput exposes the tool's input decoder to the fuzz test.
var DecodeInput = decodeInput
