import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorText } from '../../lib/api';
import { offerUndo, useEdits } from '../../lib/edits';
import { firstNames } from '../../lib/namedRecords';
import { namedList } from '../../lib/namedList';
import { deleteRecords, UNDO_TOAST_MS } from '../../lib/recordDeletes';
import { confirmDialog } from '../../ui/Dialog';
import { toast } from '../../ui/toasts';
import type { Template } from '../../../../shared/schemas/template';

/** The longest a delete's confirmation waits for the names of records it has not loaded. */
const NAMES_WAIT_MS = 300;

/**
 * Deleting records from the list or the pane. A delete goes at once and is a step of the undo
 * history like any other change (Ctrl+Z puts the records back from the service's record trash,
 * Ctrl+Shift+Z deletes them again). `pending`: the rows saying "deleting…" while the requests run.
 * `onConfirmed` runs once the person has said yes, right before the delete starts (nothing may
 * hold the delete back: its undo step goes on the list as it starts); what it returns is called
 * with the records really deleted once the service has answered, then `onDone`.
 */
export function useDeleteRecords(
  dataset: string,
  tpl: Template | undefined,
  { onConfirmed, onDone }: { onConfirmed: (uuids: string[]) => (deleted: ReadonlySet<string>) => void; onDone: () => void },
) {
  const qc = useQueryClient();
  const { undo: undoStep } = useEdits();
  const [pending, setPending] = useState<ReadonlySet<string>>(new Set());

  const request = async (uuids: string[]) => {
    if (!uuids.length) return;
    const what = uuids.length === 1 ? 'this record' : `${uuids.length.toLocaleString()} records`;
    // Named, so a record clicked only to read it is not deleted unseen with the ticked ones.
    // A busy service must not hold the dialog back: past NAMES_WAIT_MS it opens without names.
    const asked = tpl ? firstNames(qc, dataset, tpl, uuids) : Promise.resolve(null);
    const named = await Promise.race([asked, new Promise<null>((r) => setTimeout(() => r(null), NAMES_WAIT_MS))]);
    const names = named ? namedList(named, uuids.length) : '';
    const ok = await confirmDialog({
      title: uuids.length === 1 ? 'Delete this record?' : `Delete ${what}?`,
      body: `${names ? `Deletes ${names}, with ${uuids.length === 1 ? 'its' : 'their'}` : uuids.length === 1 ? 'Its' : 'Their'} values, child records and files. Undo (Ctrl+Z) brings them back.`,
      confirm: 'Delete',
      danger: true,
    });
    if (!ok) return;
    setPending((p) => new Set([...p, ...uuids]));
    const settled = onConfirmed(uuids);
    const { op, error, deleted } = await deleteRecords(uuids, what);
    setPending((p) => new Set([...p].filter((u) => !uuids.includes(u))));
    settled(deleted);
    onDone();
    if (error) toast({ kind: 'error', text: `Not ${op ? 'all ' : ''}deleted: ${errorText(error)}` });
    else if (op) offerUndo(op, `Deleted ${what}`, UNDO_TOAST_MS, undoStep);
  };
  return { pending, request };
}
