// Package hostkit holds helpers for implementers of the contracts of
// package host: the storage and notifications a [host.Session]
// implementation keeps. A session keeps its log in a [LogBuilder] and its
// subscribers in [Subscribers] (its close notification is
// context.AfterFunc on a context it cancels when it closes).
// The stores (packages store and pgstore) and the test hosts use them;
// plugins and front ends never need them.
package hostkit
