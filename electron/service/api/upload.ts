import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import busboy from 'busboy';
import type { Context } from 'hono';
import { badRequest, OdrError } from '../domain/errors.js';
import type { BlobStore } from '../domain/files/blobStore.js';
import { stage, TooLarge, type Staged } from '../domain/files/ingest.js';

export interface StagedPart {
  staged: Staged;
  filename: string;
  declaredType: string;
}

export interface ParsedUpload {
  fields: Record<string, string>;
  files: StagedPart[];
  /** Removes the staged bytes that were not moved into the store. */
  discard: () => Promise<void>;
}

const tooLarge = (max: number) => new OdrError(413, `File larger than the upload limit of ${max} bytes`);

/**
 * Streams a multipart body: every file part goes to the store's tmp area while it is hashed,
 * form fields are collected whatever their position. Nothing is buffered whole in memory.
 */
export async function readMultipartUpload(c: Context, blobs: BlobStore, maxBytes: number): Promise<ParsedUpload> {
  const type = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(type)) throw badRequest('POST /file takes a multipart/form-data body');
  const declared = Number(c.req.header('content-length'));
  // The multipart framing adds a little; anything far beyond the limit is refused unread.
  if (Number.isFinite(declared) && declared > maxBytes + 1024 * 1024) throw tooLarge(maxBytes);
  // Under node:http the raw request streams straight into the parser; a web stream (Electron's
  // protocol handler, in-process fetch) goes through an adapter, which costs throughput.
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  let source: Readable;
  if (incoming && !incoming.readableDidRead) {
    source = incoming;
  } else {
    const body = c.req.raw.body;
    if (!body) throw badRequest('Request body is empty');
    source = Readable.fromWeb(body as unknown as NodeWebStream<Uint8Array>);
  }
  let bb: busboy.Busboy;
  try {
    // Browsers and undici send UTF-8 file names; busboy's default would read them as Latin-1.
    bb = busboy({
      headers: { 'content-type': type },
      defParamCharset: 'utf8',
      fileHwm: 1024 * 1024,
      limits: { fields: 100, fieldSize: 1024 * 1024, files: 50 },
    });
  } catch (e) {
    throw badRequest(`Malformed multipart body: ${(e as Error).message}`);
  }
  const fields: Record<string, string> = {};
  const parts: (StagedPart | undefined)[] = [];
  const pending: Promise<void>[] = [];
  const streams: Readable[] = [];
  const discard = async () => {
    await Promise.allSettled(pending);
    await Promise.all(parts.map((p) => (p ? rm(p.staged.tmp, { force: true }) : undefined)));
  };

  return new Promise<ParsedUpload>((resolve, reject) => {
    let failed = false;
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      source.unpipe(bb);
      // Destroying the raw request would reset the socket before the error answer is read;
      // its remaining bytes are discarded instead.
      if (source === incoming) source.resume();
      else source.destroy();
      // Parts still streaming would wait for bytes that never come: end them so discard() settles.
      for (const st of streams) if (!st.readableEnded) st.destroy(new Error('upload ended early'));
      const err =
        e instanceof TooLarge
          ? tooLarge(maxBytes)
          : e instanceof OdrError
            ? e
            : badRequest(`Malformed multipart body: ${(e as Error).message}`);
      void discard().then(() => reject(err));
    };
    bb.on('field', (name, value) => {
      fields[name] = value;
    });
    bb.on('file', (_name, stream, info) => {
      streams.push(stream);
      const i = parts.length;
      parts.push(undefined);
      pending.push(
        stage(blobs, stream, maxBytes).then(
          (staged) => {
            parts[i] = { staged, filename: info.filename ?? '', declaredType: info.mimeType };
          },
          (e: unknown) => {
            stream.resume();
            fail(e);
          },
        ),
      );
    });
    bb.on('error', fail);
    source.on('error', fail);
    // A client that hangs up mid-body may end the stream without an 'error': the parser would
    // wait for the rest for ever, holding the staged parts.
    source.on('close', () => {
      if (!source.readableEnded) fail(new Error('aborted'));
    });
    bb.on('close', () => {
      void Promise.all(pending).then(() => {
        if (failed) return;
        resolve({ fields, files: parts.filter((p): p is StagedPart => p !== undefined), discard });
      }, fail);
    });
    source.pipe(bb);
  });
}
