import type { QueryClient } from '@tanstack/react-query';
import type { OdrRecord } from '../../../shared/schemas/record';
import type { Template } from '../../../shared/schemas/template';
import { api } from './api';
import { keys } from './queries';
import { recordName } from '../../../shared/recordName';
import { NAMED } from './namedList';

/**
 * The names of the first NAMED records, as the table shows them, so a confirmation says which
 * records it acts on (a row clicked only to read it is among them too). Records the table or the
 * pane already holds are not asked for again.
 */
export async function firstNames(qc: QueryClient, dataset: string, tpl: Template, uuids: string[]): Promise<string[]> {
  const wanted = uuids.slice(0, NAMED);
  const held = new Map<string, OdrRecord>();
  for (const [, page] of qc.getQueriesData<unknown>({ queryKey: keys.table(dataset) }))
    if (Array.isArray(page)) for (const r of page as OdrRecord[]) if (wanted.includes(r.record_uuid)) held.set(r.record_uuid, r);
  const names = await Promise.all(
    wanted.map(async (u) => {
      const rec = held.get(u) ?? qc.getQueryData<OdrRecord>(keys.record(u)) ?? (await api.record(u).catch(() => undefined));
      return rec ? recordName(rec, tpl) : `record ${u}`;
    }),
  );
  return names;
}
