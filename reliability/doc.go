// Package reliability holds no library code: its tests are the project's
// reliability and security evidence. They drive the public APIs of the
// other packages (the reference host, the durable store, the deployment
// loader and the plan-mode plugin) the way a host and a hostile or unlucky
// world would:
//
//   - crash consistency: a host runs a scripted session as a child process
//     on the durable store and is killed with SIGKILL at many points; every
//     kill is followed by a reopen, a projection check and a resumed turn;
//   - concurrency: many goroutines switch plan mode, read it, steer and run
//     "/plan" while turns run on several agents;
//   - limits: each over-limit input fails with a clear error and changes
//     nothing stored;
//   - fail-closed approval: only the user's answer to the review question
//     can approve a plan;
//   - files: session files are private and a session ID never names a path
//     outside the sessions directory.
//
// docs/reliability.md reports what the tests found, with the exact error
// each bad input gets.
package reliability
