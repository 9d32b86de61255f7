import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceDir, serviceSources as sources } from './service-sources';

/**
 * Where the process's role may decide anything: the assembly by role, the start-up that picks it, the queue
 * adapters and the persistence it opens. Everywhere else a use case enqueues and follows through the job port.
 */
const mayKnowTheRole = (file: string) =>
  file.startsWith(`assembly${path.sep}`) || file.startsWith(`queue${path.sep}`) || file.startsWith(`cli${path.sep}`) || ['server.ts', 'persistence.ts', 'config.ts'].includes(file);

/** A role check: asking the runner where jobs run, or comparing with a role's name. */
const roleCheck = /\brunsJobsHere\b|instanceof\s+(InProcessWorker|QueueWorker)\b|(===|!==)\s*'(embedded|api|worker)'|'(embedded|api|worker)'\s*(===|!==)/;

describe('one path per use case', () => {
  it('no service file outside the assembly and the queue adapters asks which role its process has', () => {
    const files = sources();
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter((file) => !mayKnowTheRole(file) && roleCheck.test(fs.readFileSync(path.join(serviceDir, file), 'utf8')));
    expect(offenders, 'enqueue and follow through the job port (jobs/job-runner.ts JobQueue) instead').toEqual([]);
  });

  it('the check finds what it looks for', () => {
    expect(roleCheck.test('if (jobs.runsJobsHere) {')).toBe(true);
    expect(roleCheck.test("const team = persistence.role !== 'embedded';")).toBe(true);
    expect(roleCheck.test('this.worker instanceof InProcessWorker')).toBe(true);
    expect(roleCheck.test("registerRequestWork(runner, work, { kind: 'align' })")).toBe(false);
  });
});
