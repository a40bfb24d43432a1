/** The console's frame: the navigation, the signed-in user, and the page of the current route. */
import { useEffect, useRef } from 'preact/hooks';
import { signOut } from './api';
import type { ConsoleConfig } from './config';
import { Link, useRoute, type Route } from './router';
import { ConvertPage } from './pages/convert';
import { JobsPage } from './pages/jobs';
import { JobPage } from './pages/job';
import { BuilderPage } from './pages/builder';
import { AccountPage } from './pages/account';

const TITLES: Record<Route['page'], string> = {
  convert: 'Convert',
  jobs: 'Jobs',
  job: 'Job',
  builder: 'Job builder',
  account: 'Account',
  missing: 'Not found',
};

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'convert':
      return <ConvertPage />;
    case 'jobs':
      return <JobsPage />;
    case 'job':
      return <JobPage id={route.id} />;
    case 'builder':
      return <BuilderPage />;
    case 'account':
      return <AccountPage />;
    default:
      return (
        <section>
          <h1>Not found</h1>
          <p>
            There is no console page at <code>/console/{route.path}</code>. <Link to="">Convert a file</Link>.
          </p>
        </section>
      );
  }
}

/** Focuses the current page's heading (each page's <h1 tabIndex={-1}>), or else the main region. */
function focusHeading(): void {
  const target = document.querySelector<HTMLElement>('main h1') ?? document.querySelector<HTMLElement>('main');
  target?.focus();
}

export function App({ config }: { config: ConsoleConfig }) {
  const route = useRoute();
  const first = useRef(true);
  useEffect(() => {
    document.title = `${TITLES[route.page]} · Console`;
    // After a navigation, focus moves to the new page's heading, so a screen reader announces the
    // change. Not on the first load: the focus stays at the top of the document, so that the first Tab
    // reaches the skip link, as on any page the browser loads.
    if (first.current) first.current = false;
    else focusHeading();
  }, [route]);
  const nav: Array<[string, string, Route['page'][]]> = [
    ['', 'Convert', ['convert']],
    ['jobs', 'Jobs', ['jobs', 'job']],
    ['builder', 'Job builder', ['builder']],
    ['account', 'Account', ['account']],
  ];
  return (
    <>
      <a
        class="skip"
        href="#content"
        onClick={(e) => {
          // The fragment alone would only move the caret; the heading takes the focus instead, so the
          // next Tab is the page's first control and a screen reader reads where it landed.
          e.preventDefault();
          focusHeading();
        }}
      >
        Skip to the page
      </a>
      <header class="top">
        <nav aria-label="Console">
          <ul>
            {nav.map(([to, label, pages]) => (
              <li key={to}>
                <Link to={to} current={pages.includes(route.page)}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>{config.user.username}</span>
          <button type="button" class="secondary" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="content" tabIndex={-1}>
        <Page route={route} />
      </main>
    </>
  );
}
