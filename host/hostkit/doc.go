// Package hostkit holds helpers for implementers of the contracts of
// package host: the storage, notifications and registries sessions and
// hosts keep. A session keeps its log in a [LogBuilder] and its subscribers
// in [Subscribers] (its close notification is context.AfterFunc on a
// context it cancels when it closes). A host embeds [Registries], the
// registries plan mode and its companions register into, with their
// checks, and keeps any other registry of its own in a [Registry]. The
// stores (packages store and pgstore) and the hosts (refhost, the Eino
// adapter, hosttest) use them; plugins and front ends never need them.
package hostkit
