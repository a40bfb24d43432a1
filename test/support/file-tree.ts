/** Small trees of files in a temporary folder, for the checks that read a tree (layers, tiers); removed after each test. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

const trees: string[] = [];
afterEach(() => {
  for (const t of trees.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A folder holding `files` (path below it → text); its path. */
export function fileTree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'tree-'));
  trees.push(root);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}
