// The Python OAuth client (authlib_client.py): Authlib's own code does the client's part of each step,
// so the tests prove identity against an implementation this project did not write.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** Debian's interpreter, where python3-authlib is installed (a python3 earlier on PATH may lack it). */
const PYTHON = '/usr/bin/python3';
const CLIENT_SCRIPT = join(import.meta.dirname, 'authlib_client.py');
const STEP_TIMEOUT_MS = 20_000;

/** One step of the Python client: JSON in on stdin, JSON out. */
export async function authlib<T>(command: string, input: Record<string, unknown>): Promise<T> {
  // -I: isolated mode, so no PYTHON* variable or user site of this machine changes what is imported.
  const run = promisify(execFile)(PYTHON, ['-I', CLIENT_SCRIPT, command], {
    timeout: STEP_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    // Loopback HTTP: Authlib insists on HTTPS unless told otherwise.
    env: { ...process.env, AUTHLIB_INSECURE_TRANSPORT: '1' },
  });
  run.child.stdin!.end(JSON.stringify(input));
  const { stdout } = await run;
  return JSON.parse(stdout) as T;
}

/** A backend service's key pair as Authlib makes it: the private JWK, and the public JWKS to register. */
export interface BackendKeys {
  private: Record<string, unknown>;
  jwks: { keys: Record<string, unknown>[] };
}
