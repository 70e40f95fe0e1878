// The `meta` keys the sync keeps per remote and top-level dataset. Named here only, so "stop
// syncing" (syncDetach.ts) drops every one of them with the dataset's other sync state.

/** The template last applied from that remote (templateParts.ts). */
export const templateKey = (remoteId: number, dataset: string) => `sync_template:${remoteId}:${dataset}`;

/** When the last file sweep of a dataset ended, and where the one under way stopped (docs/sync.md §4). */
export function sweepKeys(remoteId: number, dataset: string): { at: string; next: string } {
  const at = `sync_sweep:${remoteId}:${dataset}`;
  return { at, next: `${at}:next` };
}

/** GLOB patterns for every key above of `dataset`, whichever remote (a uuid holds no GLOB characters). */
export const datasetKeyPatterns = (dataset: string): string[] => [
  templateKey(0, dataset).replace(':0:', ':*:'),
  sweepKeys(0, dataset).at.replace(':0:', ':*:'),
  sweepKeys(0, dataset).next.replace(':0:', ':*:'),
];
