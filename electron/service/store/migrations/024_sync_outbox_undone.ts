// Before this version a pull undid a refused ("parked") value, option or public-date edit here
// with the server's copy; from now on a pull writes a parked edit back (sync/pull.ts keepRefused).
// Parked rows already in a database were undone long ago: marked `undone`, they stay listed under
// "needs attention" but are neither written back nor count as changed here (docs/sync.md §5).
export default `
ALTER TABLE sync_outbox ADD COLUMN undone INTEGER NOT NULL DEFAULT 0;
UPDATE sync_outbox SET undone = 1 WHERE state = 'parked' AND op IN ('value', 'option', 'public');
`;
