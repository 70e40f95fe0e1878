import { useQueries, useQuery } from '@tanstack/react-query';
import type { FileEntry } from '../../../shared/schemas/record';
import { api } from '../lib/api';

/** Files bigger than this are not parsed in the window (the raw file stays downloadable). */
export const MAX_TEXT_BYTES = 64 * 2 ** 20;

export class FileUnavailable extends Error {
  constructor(
    message: string,
    readonly notHere: boolean,
  ) {
    super(message);
  }
}

/**
 * The text of a stored file through GET /file. A file imported as metadata only (its bytes on
 * the ODR server) answers an error here until a remote is attached and the service fetches it.
 */
async function fetchText(file: FileEntry): Promise<string> {
  if (Number(file.file_size ?? 0) > MAX_TEXT_BYTES) {
    throw new FileUnavailable(
      `${file.original_name} is ${(Number(file.file_size) / 2 ** 20).toFixed(0)} MB, too large to draw here; download it instead`,
      false,
    );
  }
  let res: Response;
  try {
    res = await api.send('GET', `/file/${file.file_uuid}`);
  } catch {
    throw new FileUnavailable('The local service could not be reached', false);
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    const notHere = file.content_local === false || res.status === 404;
    throw new FileUnavailable(body?.error?.message ?? `${res.status} ${res.statusText}`, notHere);
  }
  return res.text();
}

const fileKey = (f: FileEntry) => ['file-text', f.file_uuid] as const;
const options = (f: FileEntry) => ({ queryKey: fileKey(f), queryFn: () => fetchText(f), staleTime: Infinity, retry: false });

export const useFileText = (file: FileEntry | undefined) =>
  useQuery({ ...options(file ?? ({ file_uuid: '' } as FileEntry)), enabled: !!file });

export const useFileTexts = (files: FileEntry[]) => useQueries({ queries: files.map(options) });
