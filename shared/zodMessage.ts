import type { z } from 'zod';
import { withArticle } from './article.js';

// One wording for every schema failure, whichever route or form it comes from: the place
// (`filters[0].min`, or a caller's own words such as `Field 48a… "Count" (Integer): value`),
// what was expected and what was given. zod's own "Invalid input" names neither.

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

/** `fields[2].value`: array indexes in brackets, keys after dots. */
export function pathText(path: Path, root = ''): string {
  let out = root;
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out;
}

const TYPE_WORDS: Record<string, string> = { int: 'an integer', null: 'null', boolean: 'a boolean' };
const typeWord = (t: string) => TYPE_WORDS[t] ?? withArticle(t);

/** What an issue accepts, in words ("a string", "0", "null"); empty when it cannot be said. */
function accepted(issue: Issue): string[] {
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected === 'boolean' ? ['true', 'false'] : [typeWord(issue.expected)];
    case 'invalid_value':
      return issue.values.map((v) => JSON.stringify(v) ?? String(v));
    case 'invalid_union': {
      // A branch that failed deeper inside (an object with a bad key) is not a plain alternative.
      if (issue.errors.some((b) => b.length !== 1 || b[0]!.path.length !== 0)) return [];
      const all = issue.errors.flatMap((b) => accepted(b[0]!));
      return all.includes('') ? [] : [...new Set(all)];
    }
    default:
      return [];
  }
}

/** "a, b or c" */
function orList(words: string[]): string {
  return words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

function valueAt(input: unknown, path: Path): { found: boolean; value?: unknown } {
  let v = input;
  for (const p of path) {
    if (v === null || typeof v !== 'object' || !(p in v)) return { found: false };
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return { found: true, value: v };
}

/** A given value as the message quotes it: JSON, cut short. */
function shown(v: unknown): string {
  if (v === undefined) return 'nothing';
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

/** zod's default messages end in "received <type>"; its own issues carry no input. */
function receivedType(issue: Issue): string | undefined {
  const m = /received (\w+)/.exec(issue.message);
  if (m) return m[1];
  if (issue.code === 'invalid_union') for (const b of issue.errors) for (const i of b) if (i.path.length === 0) return receivedType(i);
  return undefined;
}

const isDefault = (m: string) => m === 'Invalid input' || m.startsWith('Invalid input:') || m.startsWith('Invalid option:');

export interface ZodMessageOptions {
  /** The parsed value: lets the message quote what was given. */
  input?: unknown;
  /** Words for a path (default: `pathText`); e.g. naming the record field a save entry is for. */
  place?: (path: Path) => string;
}

/** The first issue of a failed parse as one sentence naming the place, what it takes and what came. */
export function zodMessage(e: z.ZodError, opts: ZodMessageOptions = {}): string {
  const issue = e.issues[0];
  if (!issue) return 'Malformed request syntax';
  const where = (opts.place ?? pathText)(issue.path);
  const takes = accepted(issue);
  if (isDefault(issue.message) && takes.length) {
    const at = valueAt(opts.input, issue.path);
    const rt = receivedType(issue);
    const subject = where || 'the value';
    if (at.found ? at.value === undefined : rt === 'undefined') return `${subject} is required: ${orList(takes)}`;
    const given = at.found ? shown(at.value) : rt ? typeWord(rt) : '';
    return `${subject} must be ${orList(takes)}${given ? `, not ${given}` : ''}`;
  }
  return where && !issue.message.startsWith(where) ? `${where}: ${issue.message}` : issue.message;
}
