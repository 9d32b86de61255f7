import fs from 'node:fs';
import path from 'node:path';

/** Whether any process other than this one has a file under `dir` open (Linux: /proc/<pid>/fd). */
function heldOpen(dir: string): boolean {
  const prefix = `${path.resolve(dir)}${path.sep}`;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) {
      try {
        if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(prefix)) return true;
      } catch {
        // closed meanwhile
      }
    }
  }
  return false;
}

/**
 * Waits until no other process holds a file in the service's data folder open. `npm run serve` exits
 * before the node process behind it has finished stopping its jobs, which may still write the session.
 */
export async function waitForRelease(dir: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (heldOpen(dir)) {
    if (Date.now() > deadline) throw new Error(`files in ${dir} are still open after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
