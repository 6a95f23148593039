// Package greeter builds greetings.
package greeter

// Hello returns a greeting for name.
func Hello(name string) string {
	return "Hello, " + name + "!"
}
