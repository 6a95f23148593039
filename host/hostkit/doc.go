// Package hostkit holds helpers for implementers of the contracts of
// package host: the storage and notifications a [host.Session]
// implementation keeps. A session keeps its log in a [LogBuilder], its
// subscribers in [Subscribers] and its close notification in [CloseFuncs].
// The stores (packages store and pgstore) and the test hosts use them;
// plugins and front ends never need them.
package hostkit
