package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/dshgo/planmode/host"
)

// Documents is the store's [host.Documents]: agent-scoped documents in
// table planmode_documents, shared by every process on the database. Each
// Put is one statement that compares the version and writes, so two
// processes writing one document never both win.
type Documents struct{ st *Store }

// Documents returns the store's agent-scoped documents.
func (s *Store) Documents() *Documents { return &Documents{st: s} }

// Document statements.
const (
	sqlGetDocument    = `SELECT data, version FROM planmode_documents WHERE agent_id = $1 AND name = $2`
	sqlInsertDocument = `INSERT INTO planmode_documents (agent_id, name, version, data) VALUES ($1, $2, 1, $3)
		ON CONFLICT (agent_id, name) DO NOTHING RETURNING version`
	sqlUpdateDocument = `UPDATE planmode_documents SET data = $3, version = version + 1, updated = now()
		WHERE agent_id = $1 AND name = $2 AND version = $4 RETURNING version`
)

// Get implements [host.Documents].
func (d *Documents) Get(ctx context.Context, agentID, name string) (host.Document, error) {
	if err := host.ValidateDocumentKey(agentID, name); err != nil {
		return host.Document{}, fmt.Errorf("pgstore: get document: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, d.st.opts.timeout)
	defer cancel()
	var (
		doc host.Document
		err error
	)
	for i := 1; ; i++ {
		err = d.st.pool.QueryRow(ctx, sqlGetDocument, agentID, name).Scan(&doc.Data, &doc.Version)
		if err == nil || errors.Is(err, pgx.ErrNoRows) || !retry(ctx, d.st.pool, i, err) {
			break
		}
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return host.Document{}, fmt.Errorf("pgstore: agent %q: document %q: %w", agentID, name, host.ErrDocumentNotFound)
	}
	if err != nil {
		return host.Document{}, fmt.Errorf("pgstore: agent %q: document %q: read: %w", agentID, name, err)
	}
	if doc.Data == nil {
		doc.Data = []byte{}
	}
	return doc, nil
}

// Put implements [host.Documents]: version 0 inserts the document unless
// it exists, any other version updates it only while it has that version.
// Either is one statement (in a transaction, so that a connection the
// server ended is replaced before anything is written); when no row comes
// back the version was not the current one and nothing changed.
func (d *Documents) Put(ctx context.Context, agentID, name string, data []byte, ifVersion int64) (host.Document, error) {
	if err := host.ValidateDocumentKey(agentID, name); err != nil {
		return host.Document{}, fmt.Errorf("pgstore: put document: %w", err)
	}
	if len(data) > host.MaxDocumentSize {
		return host.Document{}, fmt.Errorf("pgstore: agent %q: document %q: %d bytes, limit %d: %w", agentID, name, len(data), host.MaxDocumentSize, host.ErrDocumentTooLarge)
	}
	ctx, cancel := context.WithTimeout(ctx, d.st.opts.timeout)
	defer cancel()
	if data == nil {
		data = []byte{} // the column is NOT NULL; nil and empty are the same document
	}
	var v int64
	purpose := fmt.Sprintf("pgstore: agent %q: document %q: write", agentID, name)
	err := inTx(ctx, d.st.pool, pgx.TxOptions{}, purpose, func(tx pgx.Tx) error {
		var row pgx.Row
		if ifVersion == 0 {
			row = tx.QueryRow(ctx, sqlInsertDocument, agentID, name, data)
		} else {
			row = tx.QueryRow(ctx, sqlUpdateDocument, agentID, name, data, ifVersion)
		}
		err := row.Scan(&v)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("pgstore: agent %q: document %q: version %d is not the current one: %w", agentID, name, ifVersion, host.ErrVersionConflict)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", purpose, err)
		}
		return nil
	})
	if err != nil {
		return host.Document{}, err
	}
	return host.Document{Data: append([]byte{}, data...), Version: v}, nil
}

var _ host.Documents = (*Documents)(nil)
