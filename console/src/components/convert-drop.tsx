/**
 * The file input labelled "File" (several files at once) inside a zone files can be dropped on. The
 * input is the keyboard's way in; the zone takes drops of one or more files. Either way the files are
 * added to those already chosen.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

const carriesFiles = (e: DragEvent) => [...(e.dataTransfer?.types ?? [])].includes('Files');

export function ConvertDrop(props: { id: string; onFiles: (files: File[]) => void }) {
  const [over, setOver] = useState(false);
  const zone = useRef<HTMLDivElement>(null);
  const take = (list: FileList | null | undefined) => {
    const files = [...(list ?? [])];
    if (files.length) props.onFiles(files);
  };
  // A file dropped beside the zone would make the browser leave the page to show it: refused instead.
  useEffect(() => {
    const refuse = (e: DragEvent) => {
      if (!carriesFiles(e) || (e.target instanceof Node && zone.current?.contains(e.target))) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'none';
    };
    window.addEventListener('dragover', refuse);
    window.addEventListener('drop', refuse);
    return () => {
      window.removeEventListener('dragover', refuse);
      window.removeEventListener('drop', refuse);
    };
  }, []);
  return (
    <div
      ref={zone}
      class={over ? 'drop over' : 'drop'}
      data-drop-zone
      onDragEnter={(e) => {
        if (!carriesFiles(e)) return;
        e.preventDefault();
        setOver(true);
      }}
      onDragOver={(e) => {
        if (!carriesFiles(e)) return;
        e.preventDefault();
        if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false);
      }}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        take(e.dataTransfer?.files);
      }}
    >
      <label for={props.id}>File</label>
      <input
        id={props.id}
        type="file"
        multiple
        aria-describedby={`${props.id}-hint`}
        onChange={(e) => {
          take(e.currentTarget.files);
          // Cleared, so that choosing the same file again adds it again.
          e.currentTarget.value = '';
        }}
      />
      <p id={`${props.id}-hint`} class="muted">
        Choose one or more files, or drop them here.
      </p>
    </div>
  );
}
