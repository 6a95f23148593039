// Package hostkit holds helpers for implementers of the contracts of
// package host: the storage and notifications a [host.Session]
// implementation keeps. A session keeps its log in a [LogBuilder] and its
// subscribers in [Subscribers] (its close notification is
// context.AfterFunc on a context it cancels when it closes); a host keeps
// each of its registries in a [Registry]. The stores (packages store and
// pgstore) and the hosts (refhost, hosttest) use them; plugins and front
// ends never need them.
package hostkit
