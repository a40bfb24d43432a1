/**
 * The job as code in tabs (curl, Node.js, Python): an ARIA tablist (the arrow keys, Home and End move
 * between tabs; only the selected tab is in the tab order), each panel with its code and a Copy button.
 */
import { useRef, useState } from 'preact/hooks';
import { CODE_LANGUAGES, codeFor, type CodeLanguage } from '../builder-code';

export function CodeTabs(props: { job: unknown; base: string }) {
  const [selected, setSelected] = useState<CodeLanguage>('curl');
  const [copied, setCopied] = useState('');
  const tabs = useRef<Array<HTMLButtonElement | null>>([]);
  const select = (index: number) => {
    const n = CODE_LANGUAGES.length;
    const i = (index + n) % n;
    setSelected(CODE_LANGUAGES[i]!.id);
    setCopied('');
    tabs.current[i]?.focus();
  };
  const onKeyDown = (e: KeyboardEvent, index: number) => {
    const moves: Record<string, number> = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: CODE_LANGUAGES.length - 1 };
    if (!(e.key in moves)) return;
    e.preventDefault();
    select(moves[e.key]!);
  };
  const copy = async (language: CodeLanguage, label: string) => {
    try {
      await navigator.clipboard.writeText(codeFor(language, props.job, props.base));
      setCopied(`The ${label} code is copied.`);
    } catch {
      setCopied('The browser did not allow copying: select the code and copy it.');
    }
  };
  return (
    <div class="code-tabs">
      <div role="tablist" aria-label="The job as code">
        {CODE_LANGUAGES.map((l, i) => (
          <button
            key={l.id}
            ref={(el) => {
              tabs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`code-tab-${l.id}`}
            aria-selected={selected === l.id}
            aria-controls={`code-panel-${l.id}`}
            tabIndex={selected === l.id ? 0 : -1}
            onClick={() => select(i)}
            onKeyDown={(e) => onKeyDown(e, i)}
          >
            {l.label}
          </button>
        ))}
      </div>
      {CODE_LANGUAGES.map((l) => (
        <div key={l.id} role="tabpanel" id={`code-panel-${l.id}`} aria-labelledby={`code-tab-${l.id}`} hidden={selected !== l.id} tabIndex={0}>
          {selected === l.id && (
            <>
              <pre>
                <code>{codeFor(l.id, props.job, props.base)}</code>
              </pre>
              <div class="actions">
                <button type="button" class="secondary" aria-label={`Copy the ${l.label} code`} onClick={() => void copy(l.id, l.label)}>
                  Copy
                </button>
              </div>
            </>
          )}
        </div>
      ))}
      <p role="status" class="muted">
        {copied}
      </p>
    </div>
  );
}
