import core from './001_core.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

// Append only: a shipped migration never changes (its hash is checked at start-up).
export const MIGRATIONS: Migration[] = [
  { version: 1, name: 'core', sql: core },
];
