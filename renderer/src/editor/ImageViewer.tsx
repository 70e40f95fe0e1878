import { useEffect, useRef, useState, type PointerEvent } from 'react';
import type { FileEntry, OdrRecord } from '../../../shared/schemas/record';
import { api } from '../lib/api';
import { fileSizeText } from '../lib/bytes';
import { useSyncedDatasets } from '../lib/queries';
import { createStore, useStore } from '../lib/store';
import { Modal } from '../ui/Dialog';
import { groupImages } from './imageGroups';

/** One image of a record as the viewer shows it: the original, never a thumbnail. */
export interface ViewerImage {
  file: FileEntry;
  field: string;
  /** The dataset of the record holding it ('' unknown): a synced one fetches server-only images. */
  dataset: string;
}

interface Viewing {
  images: ViewerImage[];
  index: number;
}

const viewing = createStore<Viewing | null>(null);

/**
 * Every image original in a record tree, in the order the pane shows them (fields, then child
 * records). The record's JSON does not name field types: an image is a file with pixel
 * dimensions or a thumbnail derived from it, as only image fields have.
 */
export function recordImages(rec: OdrRecord): ViewerImage[] {
  const own = rec.fields.flatMap((f) =>
    groupImages(f.files ?? [])
      .filter(({ original, thumb }) => original.width !== undefined || thumb !== undefined)
      .map(({ original }) => ({ file: original, field: f.field_name, dataset: rec.database_uuid })),
  );
  return [...own, ...(rec.records ?? []).flatMap(recordImages)];
}

/** Opens the viewer on `file` among the record tree's images; closing it focuses what had the focus. */
export function openImage(rec: OdrRecord, file: FileEntry) {
  const images = recordImages(rec);
  const index = images.findIndex((i) => i.file.file_uuid === file.file_uuid);
  viewing.set({ images: index < 0 ? [{ file, field: '', dataset: '' }, ...images] : images, index: Math.max(0, index) });
}

const ZOOMS = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8];

/**
 * The image viewer: full size, zoom (buttons, + − 0 keys, Ctrl+wheel), pan (drag, scrollbars, or
 * arrow keys once the image has the focus), previous/next across the record's images (buttons,
 * ← →), Escape closes and gives the focus back to the thumbnail that opened it.
 */
export function ImageViewer() {
  const v = useStore(viewing, (x) => x);
  const ref = useRef<HTMLDialogElement>(null);
  const stage = useRef<HTMLDivElement>(null);
  const drag = useRef<{ x: number; y: number; left: number; top: number } | null>(null);
  /** 'fit': the whole image in the window; a number: its scale against the natural size. */
  const [zoom, setZoom] = useState<number | 'fit'>('fit');
  const [natural, setNatural] = useState<{ w: number; h: number } | null>(null);
  const [failed, setFailed] = useState(false);
  const current = v?.images[v.index];
  const synced = useSyncedDatasets().data ?? [];

  const open = v !== null;
  useEffect(() => {
    if (open) ref.current?.querySelector<HTMLButtonElement>('button[data-close]')?.focus();
  }, [open]);
  useEffect(() => {
    setZoom('fit');
    setNatural(null);
    setFailed(false);
  }, [current?.file.file_uuid]);

  if (!v || !current) return null;
  // Unmounting the Modal closes the <dialog> and gives the focus back to the thumbnail that opened it.
  const close = () => viewing.set(null);
  const go = (by: number) => {
    const n = v.images.length;
    viewing.set({ ...v, index: (v.index + by + n) % n });
  };
  const fitScale = () => {
    const s = stage.current;
    if (!s || !natural) return 1;
    return Math.min(1, s.clientWidth / natural.w, s.clientHeight / natural.h);
  };
  const scale = zoom === 'fit' ? fitScale() : zoom;
  const step = (dir: 1 | -1) => {
    const next = dir > 0 ? ZOOMS.find((z) => z > scale + 1e-6) : [...ZOOMS].reverse().find((z) => z < scale - 1e-6);
    if (next !== undefined) setZoom(next);
  };
  const f = current.file;
  const size = fileSizeText(f.file_size);
  // Server-only images of a synced dataset are fetched by the local service on this request.
  const local = f.content_local !== false || synced.includes(current.dataset);
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if (zoom === 'fit' || e.button !== 0) return;
    const s = stage.current!;
    drag.current = { x: e.clientX, y: e.clientY, left: s.scrollLeft, top: s.scrollTop };
    s.setPointerCapture(e.pointerId);
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d) return;
    stage.current!.scrollLeft = d.left - (e.clientX - d.x);
    stage.current!.scrollTop = d.top - (e.clientY - d.y);
  };
  const many = v.images.length > 1;
  return (
    <Modal
      dialogRef={ref}
      className="image-viewer"
      label={`Image ${f.original_name}`}
      onClose={close}
      onKeyDown={(e) => {
        const onStage = e.target === stage.current;
        if (e.key === '+' || e.key === '=') step(1);
        else if (e.key === '-') step(-1);
        else if (e.key === '0') setZoom('fit');
        else if (many && !onStage && e.key === 'ArrowLeft') go(-1);
        else if (many && !onStage && e.key === 'ArrowRight') go(1);
        else return;
        e.preventDefault();
      }}
    >
      <header className="viewer-bar">
        <div className="viewer-title">
          <strong>{f.original_name}</strong>
          <span className="muted small">
            {current.field}
            {f.width ? ` · ${f.width}×${f.height}` : ''}
            {size ? ` · ${size}` : ''}
            {many ? ` · ${v.index + 1} of ${v.images.length}` : ''}
          </span>
        </div>
        <div className="viewer-tools" role="toolbar" aria-label="Image tools">
          {many && (
            <button type="button" onClick={() => go(-1)} aria-label="Previous image" title="Previous image (←)">
              ‹
            </button>
          )}
          {many && (
            <button type="button" onClick={() => go(1)} aria-label="Next image" title="Next image (→)">
              ›
            </button>
          )}
          <button type="button" onClick={() => step(-1)} aria-label="Zoom out" title="Zoom out (−)" disabled={!local}>
            −
          </button>
          <span className="viewer-zoom" aria-live="polite" data-testid="viewer-zoom">
            {Math.round(scale * 100)}%
          </span>
          <button type="button" onClick={() => step(1)} aria-label="Zoom in" title="Zoom in (+)" disabled={!local}>
            +
          </button>
          <button type="button" onClick={() => setZoom('fit')} aria-pressed={zoom === 'fit'} title="Fit the window (0)" disabled={!local}>
            Fit
          </button>
          <button type="button" onClick={() => setZoom(1)} aria-pressed={zoom === 1} title="Actual size" disabled={!local}>
            100%
          </button>
          {local && (
            <a className="button" href={api.fileUrl(f.file_uuid)} download={f.original_name}>
              Download
            </a>
          )}
          <button type="button" data-close onClick={close} aria-label="Close the image viewer" title="Close (Escape)">
            Close
          </button>
        </div>
      </header>
      <div
        ref={stage}
        className={`viewer-stage${zoom === 'fit' ? ' fit' : ' zoomed'}`}
        tabIndex={0}
        role="group"
        aria-label={zoom === 'fit' ? 'Image' : 'Image (drag or use the arrow keys to move around)'}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={() => (drag.current = null)}
        onWheel={(e) => {
          if (!e.ctrlKey || !local) return;
          e.preventDefault();
          step(e.deltaY < 0 ? 1 : -1);
        }}
      >
        {!local ? (
          <p className="viewer-missing" role="status">
            <strong>{f.original_name} is not on this computer.</strong> The export carried it as metadata only; the bytes are on the ODR
            server. Attach the server in Sync to fetch it.
          </p>
        ) : failed ? (
          <p className="viewer-missing" role="alert">
            {f.original_name} could not be shown: the file could not be read.
          </p>
        ) : (
          <img
            src={api.fileUrl(f.file_uuid)}
            alt={f.caption || f.original_name}
            draggable={false}
            onLoad={(e) => setNatural({ w: e.currentTarget.naturalWidth, h: e.currentTarget.naturalHeight })}
            onError={() => setFailed(true)}
            style={
              zoom === 'fit' || !natural
                ? undefined
                : { width: natural.w * zoom, height: natural.h * zoom, maxWidth: 'none', maxHeight: 'none' }
            }
          />
        )}
      </div>
    </Modal>
  );
}
