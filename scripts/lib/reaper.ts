// Starts scripts/reaper.ts for npm start, when there is something for it to watch: see there why it exists.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { repoRoot } from './paths.ts';

export interface Reaper {
  /** Stop `pid` with `signal` should npm start die without stopping it. */
  watch(pid: number | undefined, signal: NodeJS.Signals): void;
  /** Everything watched is stopped: nothing is left to do. */
  done(): void;
}

export function startReaper(): Reaper {
  let child: ChildProcess | undefined;
  const send = (message: object) => {
    if (child?.connected) child.send(message);
  };
  return {
    watch(pid, signal) {
      if (!pid) return;
      if (!child) {
        child = spawn(process.execPath, ['scripts/reaper.ts'], {
          cwd: repoRoot,
          stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
          detached: true,
        });
        // It must neither keep npm start alive nor be waited for.
        child.unref();
        child.channel?.unref();
      }
      send({ watch: pid, signal });
    },
    done: () => send({ done: true }),
  };
}
