import { PUBLIC_DATE_FIELD, RECORD_DELETED_FIELD, type SyncConflict } from '../../../shared/schemas/sync.js';

import type { Question } from '../ui/question.js';

export type ConflictChoice = 'mine' | 'theirs' | 'merged';

/** What a conflict card offers, worded for what the conflict is about, and what each choice did. */
export interface ConflictChoices {
  mine: { label: string; title?: string };
  theirs: { label: string; title?: string };
  /** A merged value: only a field's value can be merged (not a deleted record, a file or a public date). */
  merge: boolean;
  done: (choice: ConflictChoice) => string;
  /** What a choice that deletes asks first (the app's dialog), worded with the record's name. */
  ask?: Partial<Record<ConflictChoice, (recordName: string) => Question>>;
}

const VALUE_DONE: Record<ConflictChoice, string> = {
  mine: 'your value will be sent',
  theirs: 'the server value is kept',
  merged: 'the merged value is saved and will be sent',
};

export function conflictChoices(c: Pick<SyncConflict, 'field_uuid' | 'item_uuid'>): ConflictChoices {
  // A child record the server deleted while changes of it wait here (docs/sync.md §3): kept
  // (made on the server again) or deleted here; field values have nothing to merge.
  if (c.field_uuid === RECORD_DELETED_FIELD)
    return {
      mine: { label: 'Keep it', title: 'Keep the record here with its changes and make it on the server again' },
      theirs: { label: 'Delete it here', title: 'Delete the record here too (the Trash keeps it for 30 days)' },
      merge: false,
      ask: {
        theirs: (name) => ({
          title: `Delete ${name} here?`,
          body: `The server deleted ${name}; its changes here are not sent. It is deleted here too, and the Trash keeps it for 30 days.`,
          confirm: 'Delete it here',
          danger: true,
        }),
      },
      done: (choice) =>
        choice === 'mine' ? 'kept; the next sync makes it on the server again' : 'deleted here too (the Trash keeps it for 30 days)',
    };
  return {
    mine: { label: 'Keep mine' },
    theirs: { label: 'Keep theirs' },
    merge: !c.item_uuid && c.field_uuid !== PUBLIC_DATE_FIELD,
    done: (choice) => VALUE_DONE[choice],
  };
}
