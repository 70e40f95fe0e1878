import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileDurableSync } from '../domain/files/durableFs.js';

/** Encrypts remote passwords at rest. Electron's host passes one backed by safeStorage. */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

/**
 * `serve` mode: AES-256-GCM with a random key in <data>/sync.key, readable by the user only
 * (mode 0600). The database alone never reveals a password.
 */
export function keyFileBox(dataDir: string): SecretBox {
  const file = path.join(dataDir, 'sync.key');
  let key: Buffer;
  if (existsSync(file)) key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  else {
    key = randomBytes(32);
    // Durable before any password is sealed with it: a key lost to a power cut loses them all.
    writeFileDurableSync(file, key.toString('base64'), { mode: 0o600 });
  }
  return keyBox(key);
}

/** AES-256-GCM with the given 32-byte key (the desktop app keeps it sealed by safeStorage). */
export function keyBox(key: Buffer): SecretBox {
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return `v1:${Buffer.concat([iv, c.getAuthTag(), body]).toString('base64')}`;
    },
    open(sealed) {
      const raw = Buffer.from(sealed.replace(/^v1:/, ''), 'base64');
      const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      d.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
    },
  };
}
