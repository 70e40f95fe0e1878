// An outbox operation's revision: a local edit collected while the operation is on its way to
// the server updates it in place (the last value wins) and bumps `rev`; the push then marks it
// done only if it is still the revision it sent, so the newer edit is sent by the next pass
// instead of being lost (docs/sync.md §2).
export default `
ALTER TABLE sync_outbox ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;
`;
