/**
 * Confinement of the native tools (ffmpeg, ffprobe, Ghostscript, qpdf, LibreOffice, exiftool's perl):
 * what one tool run can reach besides its task's work folder. Every tool is started by `runTool`,
 * which asks the process's confinement for the command line.
 *
 * Levels, strongest first:
 * - `bwrap` (bubblewrap): new network, pid, ipc, uts, cgroup and (where allowed) user namespaces, no
 *   capabilities, a new session; a root file system holding only the system folders read-only (/usr
 *   and the /bin, /lib… links or folders, the few /etc entries the tools read: fonts, the loader cache,
 *   LibreOffice's registry), a fresh /proc (its own processes only), a minimal /dev, an empty tmpfs
 *   /tmp, the tool's own folder read-only when it lives elsewhere (exiftool under node_modules), and the
 *   work folder read-write at its own path: the only writable place. No network at all (the sandbox's
 *   loopback is its own), no other task's folder, no data folder, no host process or environment.
 * - `unshare` (util-linux): new network, pid, ipc and mount namespaces with a fresh /proc: no network
 *   and no other process, but the host's files stay readable as far as the user may read them.
 * - `platform`: nothing is added; the operator says the deployment isolates the function (a later
 *   Lambda design: one function instance per task, no network).
 * - `none`: nothing is added.
 *
 * `ENGINE_CONFINEMENT=auto` (the default) takes the strongest level that works here; an explicit
 * `bwrap` or `unshare` must work, otherwise no native engine is offered. LibreOffice follows the links
 * a document holds (images, backgrounds, sections, OLE objects, in several formats), so it is offered
 * only under `bwrap`, or under a level the operator named. The `command` operation runs FFmpeg with the
 * user's own arguments: it is offered only under `bwrap` or `platform`, whatever the operator named
 * (`argumentsRefused`). The probes run once per process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { EngineConfig } from '../../kernel/config.js';
import { findExecutable } from './probe.js';

export type ConfinementSetting = EngineConfig['ENGINE_CONFINEMENT'];
export type ConfinementLevel = Exclude<ConfinementSetting, 'auto'>;

/** Where one tool run happens. */
export interface Sandbox {
  /** The task's work folder: visible read-write, at its own path. */
  workDir: string;
  /** The folder the tool starts in (inside `workDir`). */
  cwd: string;
  /** Further folders or files the tool needs to read (its program files outside /usr). */
  readOnly?: readonly string[];
}

export interface Confinement {
  readonly setting: ConfinementSetting;
  readonly level: ConfinementLevel;
  /** Set when the setting asks for a confinement this machine cannot give: no native tool runs. */
  readonly unavailable?: string;
  /**
   * Set when engines that follow a document's links (LibreOffice) must not run here: neither full
   * confinement nor the operator's explicit choice. Says how to fix it.
   */
  readonly linkFollowersRefused?: string;
  /**
   * Set when tools must not run with arguments the user wrote (the `command` operation): anything but
   * full confinement (`bwrap`) or a platform that isolates them. Says how to fix it.
   */
  readonly argumentsRefused?: string;
  /** The command line that runs `file args` confined to the sandbox. */
  command(file: string, args: readonly string[], sandbox: Sandbox): { file: string; args: string[] };
}

/** System folders bound read-only (as folders, or recreated as the links they are on merged-/usr systems). */
const SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** What the tools read from /etc and /var: fonts and their cache, the loader cache, LibreOffice's and Ghostscript's configuration. */
const SYSTEM_FILES = [
  '/etc/ld.so.cache',
  '/etc/fonts',
  '/etc/alternatives',
  '/etc/localtime',
  '/etc/libreoffice',
  '/etc/ghostscript',
  '/var/cache/fontconfig',
];

let systemBinds: { args: string[]; folders: string[] } | undefined;

/** The bubblewrap arguments for the system part of the sandbox (the same for every run). */
function systemArgs(): { args: string[]; folders: string[] } {
  if (systemBinds) return systemBinds;
  const args: string[] = [];
  const folders: string[] = [];
  for (const folder of SYSTEM_FOLDERS) {
    try {
      const stat = lstatSync(folder);
      if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(folder), folder);
      else if (stat.isDirectory()) {
        args.push('--ro-bind', folder, folder);
        folders.push(folder);
      }
    } catch {
      // not on this system
    }
  }
  for (const file of SYSTEM_FILES) if (existsSync(file)) args.push('--ro-bind', file, file);
  systemBinds = { args, folders };
  return systemBinds;
}

const within = (file: string, folder: string) => file === folder || file.startsWith(`${folder}/`);

/** bubblewrap's command line for one run. */
function bwrapArgs(sandbox: Sandbox | undefined, file: string): string[] {
  const system = systemArgs();
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', ...system.args];
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  if (sandbox) {
    // The tool's own folder, and what it asks for, when they are not system folders already.
    let real = file;
    try {
      real = realpathSync(file);
    } catch {
      // spawning will say so
    }
    const readOnly = new Set([path.dirname(real), ...(sandbox.readOnly ?? [])].map((p) => path.resolve(p)));
    for (const extra of readOnly) {
      // Never the root or a folder holding the work folder (that would show the other tasks' folders).
      if (extra === '/' || within(sandbox.workDir, extra)) continue;
      if (!system.folders.some((folder) => within(extra, folder)) && !within(extra, sandbox.workDir)) args.push('--ro-bind', extra, extra);
    }
    args.push('--bind', sandbox.workDir, sandbox.workDir, '--chdir', sandbox.cwd);
  }
  return args;
}

function unshareArgs(): string[] {
  // Unprivileged, the namespaces need a user namespace of their own (mapped to the same user outside).
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  return [...(root ? [] : ['--map-root-user']), '--net', '--pid', '--ipc', '--fork', '--mount-proc', '--kill-child'];
}

/** Runs the mechanism once with `true`: undefined when it works, else why not and how to fix it. */
function tryRun(executable: string | undefined, name: string, setting: string, install: string, args: string[]): string | undefined {
  if (!executable) return `${name} was not found (install it: ${install}; or set ${setting})`;
  const truth = findExecutable('true', '/usr/bin:/bin');
  if (!truth) return `there is no /usr/bin/true to try ${name} with`;
  const run = spawnSync(executable, [...args, '--', truth], {
    encoding: 'utf8',
    timeout: 10_000,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
  });
  if (run.status === 0) return undefined;
  const said = (run.stderr ?? '').trim().split('\n')[0] || run.error?.message || `exit code ${run.status}`;
  return `${name} cannot create namespaces here (${said.slice(0, 200)}; the host or container must allow user namespaces)`;
}

/** Why user-written arguments do not run at this level (they run under bwrap, or where the platform isolates the tool). */
function argumentsRefusedAt(level: ConfinementLevel): string | undefined {
  if (level === 'bwrap' || level === 'platform') return undefined;
  const reach = level === 'unshare' ? 'here engines can read every file your user can' : 'here engines run with your network and files';
  return `the command operation runs only fully confined (it hands the user's own arguments to the tool), and ${reach} (confinement ${level}); install bubblewrap (apt-get install bubblewrap), or set ENGINE_CONFINEMENT=platform where the deployment isolates each engine`;
}

function make(setting: ConfinementSetting, level: ConfinementLevel, extra: { unavailable?: string; linkFollowersRefused?: string; bwrap?: string; unshare?: string }): Confinement {
  return {
    setting,
    level,
    unavailable: extra.unavailable,
    linkFollowersRefused: extra.linkFollowersRefused,
    argumentsRefused: extra.unavailable ? undefined : argumentsRefusedAt(level),
    command(file, args, sandbox) {
      if (level === 'bwrap') return { file: extra.bwrap!, args: [...bwrapArgs(sandbox, file), '--', file, ...args] };
      if (level === 'unshare') return { file: extra.unshare!, args: [...unshareArgs(), '--', file, ...args] };
      return { file, args: [...args] };
    },
  };
}

const known = new Map<string, Confinement>();

/** The confinement this process gives native tools under the settings (probed once per process). */
export function confinement(settings: Pick<EngineConfig, 'ENGINE_CONFINEMENT' | 'BWRAP_PATH' | 'UNSHARE_PATH'>): Confinement {
  const setting = settings.ENGINE_CONFINEMENT;
  const key = `${setting}\0${settings.BWRAP_PATH}\0${settings.UNSHARE_PATH}`;
  let found = known.get(key);
  if (found) return found;
  if (setting === 'platform' || setting === 'none') found = make(setting, setting, {});
  else {
    const bwrap = setting === 'unshare' ? undefined : findExecutable(settings.BWRAP_PATH);
    const bwrapProblem = setting === 'unshare' ? 'not asked for' : tryRun(bwrap, 'bubblewrap', 'BWRAP_PATH', 'apt-get install bubblewrap', bwrapArgs(undefined, ''));
    const unshare = setting === 'bwrap' || !bwrapProblem ? undefined : findExecutable(settings.UNSHARE_PATH);
    const unshareProblem = setting === 'bwrap' || !bwrapProblem ? 'not asked for' : tryRun(unshare, 'unshare', 'UNSHARE_PATH', 'apt-get install util-linux', unshareArgs());
    if (!bwrapProblem) found = make(setting, 'bwrap', { bwrap });
    else if (setting === 'bwrap') {
      found = make(setting, 'none', { unavailable: `ENGINE_CONFINEMENT=bwrap, but ${bwrapProblem}; or change ENGINE_CONFINEMENT` });
    } else if (!unshareProblem) {
      found = make(setting, 'unshare', {
        unshare,
        linkFollowersRefused:
          setting === 'unshare'
            ? undefined
            : `it runs only fully confined (no network, no files outside its folder), and ${bwrapProblem}; or set ENGINE_CONFINEMENT=unshare to run it with no network but the host's files readable`,
      });
    } else if (setting === 'unshare') {
      found = make(setting, 'none', { unavailable: `ENGINE_CONFINEMENT=unshare, but ${unshareProblem}; or change ENGINE_CONFINEMENT` });
    } else {
      found = make(setting, 'none', {
        linkFollowersRefused: `it runs only fully confined (no network, no files outside its folder), and ${bwrapProblem}; or set ENGINE_CONFINEMENT=platform (the deployment isolates it) or none (unconfined)`,
      });
    }
  }
  known.set(key, found);
  return found;
}
