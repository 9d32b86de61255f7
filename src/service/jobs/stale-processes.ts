import fs from 'node:fs';
import path from 'node:path';

/**
 * Engine processes a crashed service left behind. After a `kill -9` its PocketSphinx decoders go on with
 * the utterance they hold (they stop at the end of their control pipe), taking CPU from the restarted
 * service and keeping files in its scratch folder. At start-up the service stops every process whose
 * command line names a path inside its own scratch folder: only one service uses a data folder at a time
 * (storage/data-lock.ts), so such a process can only be a leftover. Linux only (/proc); elsewhere none is found.
 */
export interface ProcessEntry {
  pid: number;
  argv: string[];
}

/** Processes other than `self` with an argument inside `folder`. */
export function staleProcessIds(processes: Iterable<ProcessEntry>, folder: string, self = process.pid): number[] {
  const inside = path.resolve(folder) + path.sep;
  const out: number[] = [];
  for (const p of processes) {
    if (p.pid !== self && p.argv.some((a) => a.startsWith(inside))) out.push(p.pid);
  }
  return out;
}

/** Every process this user can see, with its arguments (empty where /proc is absent). */
export function listProcesses(proc = '/proc'): ProcessEntry[] {
  let names: string[];
  try {
    names = fs.readdirSync(proc);
  } catch {
    return [];
  }
  const out: ProcessEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = fs.readFileSync(path.join(proc, name, 'cmdline'), 'utf8').split('\0').filter(Boolean);
      out.push({ pid: Number(name), argv });
    } catch {
      // Gone, or not ours to read.
    }
  }
  return out;
}

/** Stops the leftovers of `folder` (SIGKILL: they hold nothing worth saving); answers how many. */
export function stopStaleProcesses(folder: string, log?: (line: string) => void): number {
  let stopped = 0;
  for (const pid of staleProcessIds(listProcesses(), folder)) {
    try {
      process.kill(pid, 'SIGKILL');
      stopped++;
    } catch {
      // Already exited.
    }
  }
  if (stopped) log?.(`stopped ${stopped} engine process(es) left running by an earlier service`);
  return stopped;
}
