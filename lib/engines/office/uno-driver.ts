/**
 * The driver of a warm LibreOffice worker (pool.ts), in Python on the Debian python3-uno bridge. It is
 * kept here as text (the bundles carry no loose files) and written into each worker's folder before
 * the worker starts; it runs inside the worker's confinement with soffice, which it starts itself.
 *
 * Protocol, one JSON object a line: the driver first says `{"ready": true}` (or `{"ready": false,
 * "error": …}` and exits 3 when the bridge is missing), then answers each job line
 * `{"input", "output", "filter"?, "options"?, "filterOptions"?, "importFilter"?}` with `{"ok": true}` or `{"ok": false, "error": …}`.
 * When soffice itself is gone (a crash) it answers the job and exits 5: the pool starts a new worker.
 *
 * What it does per job is what `soffice --convert-to` does: load hidden (type detection picks the
 * import filter), store with the export filter named, or the one `--convert-to` would choose (the
 * type of the output's extension, among the export filters of the document's module), with the
 * options as FilterData; close. Loads never run macros or update links (MacroExecutionMode and
 * UpdateDocMode 0), besides the profile's settings.
 */
export const UNO_DRIVER = String.raw`
import json, subprocess, sys, time
try:
    import uno
    from com.sun.star.beans import PropertyValue
    from com.sun.star.connection import NoConnectException
except ImportError as err:
    print(json.dumps({'ready': False, 'error': 'python3-uno: %s' % err}), flush=True)
    sys.exit(3)

soffice, profile, pipe = sys.argv[1:4]
ACCEPT = 'pipe,name=%s;urp;StarOffice.ComponentContext' % pipe
office = subprocess.Popen([soffice, '--headless', '--invisible', '--nologo', '--nodefault', '--norestore', '--nolockcheck',
                           '--nofirststartwizard', '-env:UserInstallation=' + profile, '--accept=' + ACCEPT],
                          stdin=subprocess.DEVNULL, stdout=sys.stderr)

def say(answer):
    print(json.dumps(answer), flush=True)

def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p

local = uno.getComponentContext()
resolver = local.ServiceManager.createInstanceWithContext('com.sun.star.bridge.UnoUrlResolver', local)
while True:
    try:
        ctx = resolver.resolve('uno:' + ACCEPT)
        break
    except NoConnectException:
        if office.poll() is not None:
            say({'ready': False, 'error': 'soffice ended on start (%s)' % office.returncode})
            sys.exit(4)
        time.sleep(0.05)
smgr = ctx.ServiceManager
desktop = smgr.createInstanceWithContext('com.sun.star.frame.Desktop', ctx)
filters = smgr.createInstanceWithContext('com.sun.star.document.FilterFactory', ctx)
types = smgr.createInstanceWithContext('com.sun.star.document.TypeDetection', ctx)
chosen = {}

def described(sequence):
    return dict((p.Name, p.Value) for p in sequence)

def default_filter(module, output_url, extension):
    key = (module, extension)
    if key not in chosen:
        wanted = types.queryTypeByURL(output_url)
        by_type, by_extension = None, None
        for name in filters.getElementNames():
            f = described(filters.getByName(name))
            if f.get('DocumentService') != module or not (f.get('Flags', 0) & 2):
                continue
            if f.get('Type') == wanted:
                by_type = by_type or name
            elif by_extension is None and types.hasByName(f.get('Type', '')):
                if extension in described(types.getByName(f['Type'])).get('Extensions', ()):
                    by_extension = name
        chosen[key] = by_type or by_extension
    return chosen[key]

def typed(kind, value):
    if kind == 'boolean':
        return bool(value)
    if kind in ('long', 'short', 'hyper', 'unsigned long', 'unsigned short'):
        return int(value)
    if kind in ('double', 'float'):
        return float(value)
    return str(value)

def convert(job):
    load = [prop('Hidden', True), prop('MacroExecutionMode', 0), prop('UpdateDocMode', 0)]
    # As --infilter=name[:options]: for inputs whose content does not say how to read them (CSV, TSV).
    reading = job.get('importFilter')
    if reading:
        name, _, reading_options = reading.partition(':')
        load.append(prop('FilterName', name))
        if reading_options:
            load.append(prop('FilterOptions', reading_options))
    load = tuple(load)
    try:
        doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(job['input']), '_blank', 0, load)
    except Exception as err:
        return {'ok': False, 'error': 'load: %s' % type(err).__name__}
    if doc is None:
        return {'ok': False, 'error': 'load: nothing loaded'}
    try:
        url = uno.systemPathToFileUrl(job['output'])
        name = job.get('filter') or default_filter(doc.getIdentifier(), url, job['extension'])
        if not name:
            return {'ok': False, 'error': 'no export filter for %s' % job['extension']}
        store = [prop('FilterName', name), prop('Overwrite', True)]
        if job.get('filterOptions'):
            store.append(prop('FilterOptions', job['filterOptions']))
        options = job.get('options') or {}
        if options:
            data = tuple(prop(k, typed(v.get('type'), v.get('value'))) for k, v in options.items())
            store.append(prop('FilterData', uno.Any('[]com.sun.star.beans.PropertyValue', data)))
        uno.invoke(doc, 'storeToURL', (url, uno.Any('[]com.sun.star.beans.PropertyValue', tuple(store))))
        return {'ok': True}
    except Exception as err:
        return {'ok': False, 'error': 'store: %s' % type(err).__name__}
    finally:
        try:
            doc.close(True)
        except Exception:
            try:
                doc.dispose()
            except Exception:
                pass

say({'ready': True})
for line in sys.stdin:
    answer = convert(json.loads(line))
    say(answer)
    if office.poll() is not None:
        sys.exit(5)
office.kill()
`;
