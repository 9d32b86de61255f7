import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataLayout } from './files';

/** A team node's own folder name, `<host>-<pid>` (storage/files.ts), split; null for any other name. */
export function parseNodeName(name: string): { host: string; pid: number } | null {
  const match = /^(.+)-(\d+)$/.exec(name);
  if (!match) return null;
  const pid = Number(match[2]);
  return Number.isSafeInteger(pid) && pid > 0 ? { host: match[1]!, pid } : null;
}

/** True while a process with this id lives on this machine (one we may not signal lives too). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Names of the `uploads/` or `scratch/` folders of nodes that are gone: on this host, those whose process no
 * longer lives. Other hosts' folders are left to those hosts (a data folder is each machine's own; were one
 * shared, a pid says nothing about another machine), and so is this node's own.
 */
export function departedNodeFolders(names: readonly string[], self: string, host: string, alive: (pid: number) => boolean): string[] {
  return names.filter((name) => {
    if (name === self) return false;
    const node = parseNodeName(name);
    return node !== null && node.host === host && !alive(node.pid);
  });
}

/**
 * At a team node's start: removes the partial uploads and working files that nodes of this host which died
 * (kill -9, a crash, a power cut) left in the data folder, so restarts do not pile them up. Returns the
 * folders removed.
 */
export function sweepDepartedNodes(layout: DataLayout, alive: (pid: number) => boolean = processAlive, host: string = os.hostname()): string[] {
  if (!layout.node) return [];
  const removed: string[] = [];
  for (const parent of [path.dirname(layout.uploads), path.dirname(layout.scratch)]) {
    const names = fs.existsSync(parent) ? fs.readdirSync(parent) : [];
    for (const name of departedNodeFolders(names, layout.node, host, alive)) {
      const folder = path.join(parent, name);
      fs.rmSync(folder, { recursive: true, force: true });
      removed.push(folder);
    }
  }
  return removed;
}
