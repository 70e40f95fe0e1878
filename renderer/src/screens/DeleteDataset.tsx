import { useQueryClient } from '@tanstack/react-query';
import type { DatasetSummary } from '../../../shared/schemas/local';
import type { Template } from '../../../shared/schemas/template';
import { datasetQuota, deleteDataset, errorText } from '../lib/api';
import { countOf } from '../lib/numbers';
import { formatBytes } from '../lib/bytes';
import { keys } from '../lib/queries';
import { confirmDialog } from '../ui/Dialog';
import { toast } from '../ui/toasts';
import { focusWelcome } from './Welcome';

const childNames = (t: Template): string[] => t.related_databases.flatMap((c) => [c.name, ...childNames(c)]);

/** "Delete dataset…": an in-app confirmation naming what goes, then to the trash for 30 days. */
export function DeleteDatasetButton({ summary, tpl, onDeleted }: { summary: DatasetSummary; tpl?: Template; onDeleted: () => void }) {
  const qc = useQueryClient();
  const run = async () => {
    let files = 'its files';
    try {
      const bytes = Number((await datasetQuota(summary.uuid)).total_bytes);
      files = bytes > 0 ? `its files and images (${formatBytes(bytes)})` : 'no files';
    } catch {
      // the quota only sizes the message
    }
    const children = tpl ? childNames(tpl) : [];
    const records = countOf(summary.records, 'record');
    const ok = await confirmDialog({
      title: `Delete “${summary.name}”?`,
      body:
        `This deletes the dataset with ${records}, ${files}` +
        (children.length ? ` and its child dataset${children.length === 1 ? '' : 's'} ${children.map((c) => `“${c}”`).join(', ')}` : '') +
        '. It stays in the Trash for 30 days, where it can be restored.',
      confirm: 'Delete dataset',
      danger: true,
    });
    if (!ok) return;
    try {
      await deleteDataset(summary.uuid);
      toast({ kind: 'info', text: `Deleted ${summary.name}; it is in the Trash for 30 days.` });
      focusWelcome();
      onDeleted();
      await Promise.all([qc.invalidateQueries({ queryKey: keys.datasets }), qc.invalidateQueries({ queryKey: keys.trash })]);
    } catch (e) {
      toast({ kind: 'error', text: `Could not delete ${summary.name}: ${errorText(e)}` });
    }
  };
  return (
    <button type="button" className="danger" onClick={() => void run()}>
      Delete dataset…
    </button>
  );
}
