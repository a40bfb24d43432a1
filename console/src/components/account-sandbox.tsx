/**
 * Sandbox files: the MD5s the user's sandbox imports may bring in (GET/POST/DELETE
 * /sandbox/v2/users/me/sandbox/files, served at the sandbox base only, so through a sandbox token). A
 * file dropped or chosen is hashed here in the browser (console/src/md5.ts, in slices: the file is
 * never uploaded) and its MD5 added with its name; an MD5 can be typed too.
 */
import { useState } from 'preact/hooks';
import { isMd5, md5OfBlob } from '../md5';
import { sandboxData } from '../sandbox-api';
import { AccountSection, ItemsTable, MessageLine, useAction, useLoaded, when } from './account-shared';

interface SandboxFile {
  md5: string;
  filename: string | null;
  created_at: string;
}

const FILES = '/v2/users/me/sandbox/files';

export function AccountSandbox() {
  const { data: files, error, reload } = useLoaded(() => sandboxData<SandboxFile[]>('GET', FILES));
  const [typed, setTyped] = useState('');
  const [hashing, setHashing] = useState<{ name: string; fraction: number }>();
  const [over, setOver] = useState(false);
  const [message, act, busy] = useAction();

  const addFiles = (list: FileList | null | undefined) => {
    const chosen = [...(list ?? [])];
    if (!chosen.length) return;
    void act(async () => {
      const added: string[] = [];
      for (const file of chosen) {
        setHashing({ name: file.name, fraction: 0 });
        const md5 = await md5OfBlob(file, { onProgress: (fraction) => setHashing({ name: file.name, fraction }) });
        await sandboxData('POST', FILES, { md5, filename: file.name.slice(0, 255) || undefined });
        added.push(`${file.name} (${md5})`);
      }
      setHashing(undefined);
      await reload();
      return `Added to the sandbox whitelist: ${added.join(', ')}.`;
    }).finally(() => setHashing(undefined));
  };
  const addTyped = (e: Event) => {
    e.preventDefault();
    const md5 = typed.trim().toLowerCase();
    void act(async () => {
      await sandboxData('POST', FILES, { md5 });
      setTyped('');
      await reload();
      return `Added ${md5} to the sandbox whitelist.`;
    });
  };
  const remove = (file: SandboxFile) =>
    act(async () => {
      await sandboxData('DELETE', `${FILES}/${file.md5}`);
      await reload();
      return `Removed ${file.md5} from the sandbox whitelist.`;
    });

  return (
    <AccountSection id="sandbox" title="Sandbox files" error={error}>
      <p class="muted">
        Sandbox jobs (at <code>/sandbox/v2</code>, no credits used) import only files whose MD5 is on this list. A file you add here
        is hashed in this browser and not uploaded.
      </p>
      <ItemsTable
        items={files}
        label="Sandbox whitelist"
        columns={['MD5', 'File name', 'Added', 'Actions']}
        empty="No files on the sandbox whitelist yet."
        row={(file) => (
          <tr key={file.md5}>
            <td>
              <code>{file.md5}</code>
            </td>
            <td>{file.filename ?? <span class="muted">none given</span>}</td>
            <td>{when(file.created_at)}</td>
            <td>
              <button type="button" class="danger" aria-label={`Remove ${file.md5}`} disabled={busy} onClick={() => void remove(file)}>
                Remove
              </button>
            </td>
          </tr>
        )}
      />
      <div
        class={over ? 'drop over' : 'drop'}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          addFiles(e.dataTransfer?.files);
        }}
      >
        <label for="sandbox-files">Files to whitelist</label>
        <input
          id="sandbox-files"
          type="file"
          multiple
          disabled={busy}
          onChange={(e) => {
            addFiles(e.currentTarget.files);
            e.currentTarget.value = '';
          }}
        />
        <p class="muted">or drop files here</p>
        {hashing && (
          <progress aria-label={`MD5 of ${hashing.name}`} max={100} value={Math.round(hashing.fraction * 100)}>
            {Math.round(hashing.fraction * 100)}%
          </progress>
        )}
      </div>
      <form onSubmit={addTyped}>
        <label for="sandbox-md5">MD5</label>
        <input
          id="sandbox-md5"
          type="text"
          spellcheck={false}
          autocomplete="off"
          pattern="[0-9a-fA-F]{32}"
          title="32 hexadecimal characters"
          value={typed}
          onInput={(e) => setTyped(e.currentTarget.value)}
        />
        <div class="actions">
          <button type="submit" disabled={busy || !isMd5(typed)}>
            Add MD5
          </button>
        </div>
      </form>
      <MessageLine message={message} />
    </AccountSection>
  );
}
