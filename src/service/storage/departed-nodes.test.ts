import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataLayout } from './files';
import { departedNodeFolders, parseNodeName, processAlive, sweepDepartedNodes } from './departed-nodes';
import { tempDir } from '../../../test/helpers/temp';

describe("removing the folders of a team's departed nodes", () => {
  it('reads <host>-<pid>, hosts with dashes too', () => {
    expect(parseNodeName('worker-3.internal-4312')).toEqual({ host: 'worker-3.internal', pid: 4312 });
    expect(parseNodeName('blob-abc')).toBeNull();
    expect(parseNodeName('host-0')).toBeNull();
  });

  it('picks this host\'s folders whose process is gone; never its own, a living one or another host\'s', () => {
    const alive = (pid: number) => pid === 20;
    expect(departedNodeFolders(['h-10', 'h-20', 'h-30', 'other-10', 'h-x', 'h-a-10'], 'h-30', 'h', alive)).toEqual(['h-10']);
  });

  it('sweeps uploads/ and scratch/ at a node start, keeping what is not a departed node\'s', () => {
    const root = tempDir('takeline-departed-');
    const layout = new DataLayout(root, 'h-30');
    for (const name of ['h-10', 'h-20', 'other-10']) {
      for (const parent of ['uploads', 'scratch']) fs.mkdirSync(path.join(root, parent, name, 'part'), { recursive: true });
    }
    layout.ensure();
    const removed = sweepDepartedNodes(layout, (pid) => pid === 20, 'h');
    expect(removed.sort()).toEqual([path.join(root, 'scratch', 'h-10'), path.join(root, 'uploads', 'h-10')]);
    expect(fs.readdirSync(path.join(root, 'uploads')).sort()).toEqual(['h-20', 'h-30', 'other-10']);
    expect(fs.readdirSync(path.join(root, 'scratch')).sort()).toEqual(['h-20', 'h-30', 'other-10']);
    // The desktop's folder has no nodes: nothing is looked at.
    expect(sweepDepartedNodes(new DataLayout(root), () => false, 'h')).toEqual([]);
  });

  it('knows this process lives and a finished one does not', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(2 ** 22 + 12345)).toBe(false);
  });
});
