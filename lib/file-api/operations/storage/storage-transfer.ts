/**
 * What the storage imports and exports share, whatever the service: object names from `key`/`blob`/
 * `file` (printf placeholders for several files) or a prefix, streaming each file between task storage
 * and the user's storage, and turning a storage error into the task's error with the service's code
 * and message and none of the task's secrets.
 */
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import type { UserStorage } from '../../../adapters/user-storage/port.js';
import { contentTypeOf } from '../../../adapters/user-storage/mime.js';
import type { FileEntry } from '../../records/model.js';
import { redactText, secretValues } from '../../../kernel/redact.js';
import { safeDir, safeFilename } from '../../../adapters/file-store/names.js';
import { countBytes, within } from '../../records/progress.js';
import { TaskFailure, type OperationContext, type OperationOutcome } from '../framework/types.js';


const PLACEHOLDER = /%(%|0?\d*[di])/g;

/** Whether a name template holds a number placeholder (`%d`, `%i`, `%03d`). */
export const hasPlaceholder = (template: string) => [...template.matchAll(PLACEHOLDER)].some((m) => m[1] !== '%');

/** printf-style: `%d`/`%i` is the 1-based file number, `%03d` zero-padded, `%%` a percent sign. */
export function formatName(template: string, index: number): string {
  return template.replace(PLACEHOLDER, (_all, spec: string) => {
    if (spec === '%') return '%';
    const width = Number(spec.slice(0, -1) || 0);
    const digits = String(index);
    return spec.startsWith('0') ? digits.padStart(width, '0') : digits.padStart(width, ' ');
  });
}

/** A file's path below the export root: its sub-directory (prefix imports) and name, made safe again. */
const relativePath = (file: Pick<FileEntry, 'filename' | 'dir'>) => {
  const dir = safeDir(file.dir);
  return (dir ? `${dir}/` : '') + safeFilename(file.filename);
};

/**
 * The object name of each input file: `name` (numbered through its placeholder when there are several
 * files), else `prefix` + the file's path, else the file's path.
 */
export function exportNames(
  files: Array<Pick<FileEntry, 'filename' | 'dir'>>,
  opts: { name?: string; prefix?: string },
  field = 'key',
  prefixField = `${field}_prefix`,
): string[] {
  if (opts.name !== undefined) {
    if (files.length > 1 && !hasPlaceholder(opts.name)) {
      throw new TaskFailure(
        'INVALID_DATA',
        `${field} names one object but there are ${files.length} files to export; use a placeholder such as %d in ${field} or use ${prefixField}.`,
      );
    }
    return files.map((_, i) => formatName(opts.name!, i + 1));
  }
  return files.map((f) => `${opts.prefix ?? ''}${relativePath(f)}`);
}

/**
 * The file an object becomes: its base name, and below a prefix its sub-directory as `dir`; both made
 * safe (an object named `p/../q` under `p/` becomes `q`, never a file above the task's folder).
 */
export function importEntry(objectName: string, prefix?: string): { filename: string; dir?: string } {
  const relative = prefix !== undefined && objectName.startsWith(prefix) ? objectName.slice(prefix.length) : posix.basename(objectName);
  const slash = Math.max(relative.lastIndexOf('/'), relative.lastIndexOf('\\'));
  const filename = safeFilename(relative.slice(slash + 1), '') || safeFilename(relative);
  const dir = prefix !== undefined && slash >= 0 ? safeDir(relative.slice(0, slash)) : undefined;
  return dir ? { filename, dir } : { filename };
}

/** A storage error as the task's error: the service, its code and status, its message; no secrets. */
export function storageFailure(ctx: OperationContext, storage: Pick<UserStorage, 'service' | 'describe'>, err: unknown, code: string): TaskFailure {
  if (err instanceof TaskFailure) return err;
  const info = storage.describe(err);
  // On the queue's last run a transient storage error ends the task with the service's message.
  const final = ctx.finalAttempt;
  const detail = [info.code, info.status !== undefined ? `HTTP ${info.status}` : undefined].filter(Boolean).join(', ');
  const message = redactText(`${storage.service}${detail ? ` (${detail})` : ''}: ${info.message}`, secretValues(ctx.payload));
  return new TaskFailure(code, message, info.transient && !final);
}

/** Opens an adapter, reporting a refusal (bad endpoint, forbidden address) as the task's error. */
export async function openStorage<S extends UserStorage>(
  ctx: OperationContext,
  service: Pick<UserStorage, 'service' | 'describe'>,
  code: string,
  open: () => S | Promise<S>,
): Promise<S> {
  try {
    return await open();
  } catch (err) {
    throw storageFailure(ctx, service, err, code);
  }
}

/** Streams every input file into the user's storage. */
export async function exportToStorage(
  ctx: OperationContext,
  storage: UserStorage,
  naming: { name?: string; prefix?: string; field?: string; prefixField?: string },
): Promise<OperationOutcome> {
  const names = exportNames(ctx.inputs, naming, naming.field, naming.prefixField);
  const files: FileEntry[] = [];
  // Progress by bytes sent over the input files' total (their sizes as the input tasks recorded them).
  const total = Math.max(1, ctx.inputs.reduce((sum, f) => sum + (f.size ?? 0), 0));
  let done = 0;
  try {
    for (const [i, input] of ctx.inputs.entries()) {
      const source = await ctx.files.get(input.key);
      let sourceError: unknown;
      source.body.once('error', (err) => (sourceError ??= err));
      const name = names[i]!;
      const started = performance.now();
      const body = countBytes(source.body, source.size, within(ctx.progress, done / total, (done + source.size) / total));
      try {
        await storage.put({ name, body, size: source.size, contentType: contentTypeOf(input.filename, source.contentType) }, ctx.signal);
      } catch (err) {
        source.body.destroy();
        // Our own storage failing mid-stream is not the user's storage's fault.
        if (sourceError !== undefined) throw sourceError;
        throw storageFailure(ctx, storage, err, 'UPLOAD_FAILED');
      }
      ctx.log.info('exported', { storage: storage.service, bytes: source.size, durationMs: Math.round(performance.now() - started) });
      files.push({ filename: input.filename, size: source.size, ...(input.dir ? { dir: input.dir } : {}) });
      done += source.size;
    }
  } finally {
    storage.close();
  }
  return { result: { files }, credits: 0 };
}

/** Streams one object, or every object under a prefix, into the task's files. */
export async function importFromStorage(
  ctx: OperationContext,
  storage: UserStorage,
  source: { name?: string; prefix?: string; filename?: string; field?: string; prefixField?: string },
): Promise<OperationOutcome> {
  const field = source.field ?? 'key';
  const files: FileEntry[] = [];
  try {
    let objects: Array<{ name: string; size?: number }>;
    if (source.name !== undefined) {
      objects = [{ name: source.name }];
    } else {
      objects = [];
      try {
        for await (const o of storage.list(source.prefix ?? '', ctx.signal)) if (!o.name.endsWith('/')) objects.push({ name: o.name, size: o.size });
      } catch (err) {
        throw storageFailure(ctx, storage, err, 'DOWNLOAD_FAILED');
      }
      if (objects.length === 0) {
        throw new TaskFailure('DOWNLOAD_FAILED', `${storage.service}: there are no objects under the ${source.prefixField ?? `${field}_prefix`} "${source.prefix ?? ''}".`);
      }
    }
    // Progress by bytes over the listed sizes (one object: its own size, known once it is opened).
    const total = objects.every((o) => o.size !== undefined) ? objects.reduce((sum, o) => sum + o.size!, 0) : undefined;
    let done = 0;
    for (const [i, { name, size }] of objects.entries()) {
      const started = performance.now();
      let object: { body: Readable; size?: number; contentType?: string };
      try {
        object = await storage.get(name, ctx.signal);
      } catch (err) {
        throw storageFailure(ctx, storage, err, 'DOWNLOAD_FAILED');
      }
      let sourceError: unknown;
      object.body.once('error', (err) => (sourceError ??= err));
      const entry = source.name !== undefined ? { filename: safeFilename(source.filename ?? importEntry(name).filename) } : importEntry(name, source.prefix);
      try {
        const progress = objects.length === 1 ? ctx.progress : total ? within(ctx.progress, done / total, (done + size!) / total) : within(ctx.progress, i / objects.length, (i + 1) / objects.length);
        files.push(await ctx.save(entry.filename, object.body, { contentType: object.contentType, size: object.size, dir: 'dir' in entry ? entry.dir : undefined, progress }));
        done += size ?? 0;
        progress(1);
      } catch (err) {
        throw sourceError !== undefined ? storageFailure(ctx, storage, sourceError, 'DOWNLOAD_FAILED') : err;
      }
      ctx.log.info('imported', { storage: storage.service, bytes: object.size, durationMs: Math.round(performance.now() - started) });
    }
  } finally {
    storage.close();
  }
  return { result: { files }, credits: 0 };
}
