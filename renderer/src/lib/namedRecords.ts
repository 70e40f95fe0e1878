import type { QueryClient } from '@tanstack/react-query';
import type { OdrRecord } from '../../../shared/schemas/record';
import type { Template } from '../../../shared/schemas/template';
import { api } from './api';
import { keys } from './queries';
import { recordName } from '../../../shared/recordName';
import { findRecord } from '../../../shared/recordTree';
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

/** The template of `uuid` in a template tree (the top itself or any child's). */
function templateIn(tpl: Template, uuid: string): Template | undefined {
  if (tpl.template_uuid === uuid) return tpl;
  for (const c of tpl.related_databases) {
    const f = templateIn(c, uuid);
    if (f) return f;
  }
  return undefined;
}

/**
 * One record's name as the list and the pane call it, a child record's too (named by its own
 * template in the dataset's tree), for a question about it; `record 1a2b3c4d…` when it cannot be read.
 */
export async function recordNameIn(qc: QueryClient, dataset: string, uuid: string): Promise<string> {
  const fallback = `record ${uuid.slice(0, 8)}…`;
  try {
    const top = qc.getQueryData<OdrRecord>(keys.record(uuid)) ?? (await api.record(uuid));
    const rec = findRecord(top, uuid);
    const tpl = await qc.fetchQuery({ queryKey: keys.template(dataset), queryFn: () => api.template(dataset), staleTime: Infinity });
    const own = rec && templateIn(tpl, rec.database_uuid);
    return rec && own ? recordName(rec, own) : fallback;
  } catch {
    return fallback;
  }
}
