import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type DragEvent } from 'react';
import type { FileEntry } from '../../../shared/schemas/record';
import { api, errorText, uploadWithProgress } from '../lib/api';
import { keys, useRecord, useSyncedDatasets } from '../lib/queries';
import { groupImages } from './imageGroups';
import { openImage } from './ImageViewer';
import { fileSizeText } from '../lib/bytes';
import { focusInPlace } from '../lib/focusInPlace';
import { confirmDialog } from '../ui/Dialog';
import { toast } from '../ui/toasts';
import type { FieldProps } from './types';

interface Upload {
  id: number;
  name: string;
  progress: number;
  abort: () => void;
}

let nextUpload = 1;

/**
 * File and image fields: drop files from the desktop (or pick them), one progress bar per
 * upload; thumbnails for images; download; delete after confirmation.
 */
export function FilesField({ top, record, dataset, field, entry, labelId }: FieldProps) {
  const qc = useQueryClient();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const choose = useRef<HTMLButtonElement>(null);
  const isImage = field.fieldtype === 'Image';
  // A file listed from a sync remote opens through the local service, which fetches it first.
  const fromServer = (useSyncedDatasets().data ?? []).includes(dataset);
  const groups = groupImages(entry?.files ?? []);
  const { data: tree } = useRecord(top);

  const start = (files: FileList | File[]) => {
    for (const file of Array.from(files)) {
      const id = nextUpload++;
      const { done, abort } = uploadWithProgress({ dataset_uuid: dataset, record_uuid: record, field_uuid: field.field_uuid }, file, (p) =>
        setUploads((l) => l.map((u) => (u.id === id ? { ...u, progress: p } : u))),
      );
      setUploads((l) => [...l, { id, name: file.name, progress: 0, abort }]);
      done
        .then(
          () => toast({ kind: 'info', text: `Uploaded ${file.name}` }, 3000),
          (e: unknown) => toast({ kind: 'error', text: `Upload of ${file.name} failed: ${errorText(e)}` }),
        )
        .finally(() => {
          setUploads((l) => l.filter((u) => u.id !== id));
          void qc.invalidateQueries({ queryKey: keys.record(top) });
          void qc.invalidateQueries({ queryKey: keys.quota(dataset) });
        });
    }
  };

  const remove = async (f: FileEntry) => {
    if (
      !(await confirmDialog({
        title: `Delete ${f.original_name}?`,
        body: 'Its bytes are removed from this computer.',
        confirm: 'Delete',
        danger: true,
      }))
    )
      return;
    try {
      await api.deleteFile(f.file_uuid);
      toast({ kind: 'info', text: `Deleted ${f.original_name}` }, 3000);
      // Its Delete button goes with it: the focus goes to the next file's (else the one before), or to "choose…".
      const i = groups.findIndex((g) => g.original.file_uuid === f.file_uuid);
      const next = groups[i + 1] ?? groups[i - 1];
      const el = next && list.current?.querySelector<HTMLElement>(`[data-file-delete="${next.original.file_uuid}"]`);
      focusInPlace(el || choose.current);
    } catch (e) {
      toast({ kind: 'error', text: `Could not delete ${f.original_name}: ${errorText(e)}` });
    }
    void qc.invalidateQueries({ queryKey: keys.record(top) });
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    if (e.dataTransfer.files.length) start(e.dataTransfer.files);
  };

  return (
    <div
      className={`dropzone${over ? ' over' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
      data-testid={`drop-${field.field_uuid}`}
    >
      {groups.length > 0 && (
        <ul ref={list} className={isImage ? 'thumbs' : 'file-list'} aria-labelledby={labelId}>
          {groups.map(({ original, thumb }) => (
            <li key={original.file_uuid}>
              {isImage && (
                <button
                  type="button"
                  className="thumb-open"
                  // The name holds the visible words too (WCAG 2.5.3: speech users say what they see).
                  aria-label={`View ${original.original_name}${original.content_local !== false || fromServer ? '' : ': not on this computer'}`}
                  title="View full size"
                  onClick={() => tree && openImage(tree, original)}
                >
                  {original.content_local !== false || fromServer ? (
                    <img
                      src={api.fileUrl((thumb ?? original).file_uuid)}
                      alt={original.caption || original.original_name}
                      width={thumb?.width ? Number(thumb.width) / 2.5 : 120}
                      loading="lazy"
                    />
                  ) : (
                    <span className="thumb-missing">Not on this computer</span>
                  )}
                </button>
              )}
              <span className="file-name" title={original.original_name}>
                {original.original_name}
              </span>
              <span className="muted" data-testid="file-size">
                {[isImage && original.width ? `${original.width}×${original.height}` : '', fileSizeText(original.file_size)]
                  .filter(Boolean)
                  .join(' · ')}
              </span>
              {original.content_local === false && !fromServer ? (
                <span className="muted not-local">
                  Not on this computer: the import carried only its description; the bytes are on the ODR server
                </span>
              ) : original.content_local === false ? (
                <a
                  href={api.fileUrl(original.file_uuid)}
                  target="_blank"
                  rel="noreferrer"
                  title="On the ODR server only: opening it downloads it through sync and keeps it here"
                  aria-label={`Open ${original.original_name} from the server`}
                >
                  Open from server
                </a>
              ) : (
                <a
                  href={api.fileUrl(original.file_uuid)}
                  download={original.original_name}
                  aria-label={`Download ${original.original_name}`}
                >
                  Download
                </a>
              )}
              <button
                type="button"
                className="link danger"
                aria-label={`Delete ${original.original_name}`}
                data-file-delete={original.file_uuid}
                onClick={() => void remove(original)}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      {uploads.map((u) => (
        <div key={u.id} className="upload">
          <span>{u.name}</span>
          <progress max={1} value={u.progress} aria-label={`Uploading ${u.name}`} />
          <button type="button" className="link" onClick={u.abort} aria-label={`Cancel upload of ${u.name}`}>
            Cancel
          </button>
        </div>
      ))}
      <p className="muted drop-hint">
        Drop {isImage ? 'images' : 'files'} here or{' '}
        <button
          type="button"
          className="link"
          ref={choose}
          onClick={() => input.current?.click()}
          aria-label={`Choose ${isImage ? 'images' : 'files'} for ${field.name}`}
        >
          choose…
        </button>
      </p>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        accept={isImage ? 'image/*' : undefined}
        aria-label={`Upload to ${field.name}`}
        onChange={(e) => {
          if (e.target.files) start(e.target.files);
          e.target.value = '';
        }}
      />
    </div>
  );
}
