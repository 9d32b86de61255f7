import fs from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { SERVICE_HEAP_ENV } from '../../src/service/cli/heap-settings';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';

// glibc reads its heap settings at start: `npm run serve` replaces itself (same pid) with a process that has them.
const environ = (pid: number) => fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
const linux = process.platform === 'linux';
let service: ServiceProcess | null = null;

afterEach(async () => {
  await service?.stop();
  service = null;
});

/** Starts the service as a user would: no MALLOC_ variables inherited from this test's environment. */
async function startWithout(env: Record<string, string> = {}): Promise<ServiceProcess> {
  const saved = Object.keys(SERVICE_HEAP_ENV).map((name) => [name, process.env[name]] as const);
  for (const [name] of saved) delete process.env[name];
  try {
    return await startServiceProcess({ env });
  } finally {
    for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
  }
}

it.runIf(linux)('the service started without them runs with glibc heap settings, under the pid it was started as', async () => {
  service = await startWithout();
  const env = environ(service.child.pid!);
  for (const [name, value] of Object.entries(SERVICE_HEAP_ENV)) expect(env).toContain(`${name}=${value}`);
  expect((await fetch(`${service.url}/v1/models`, { headers: { Authorization: `Bearer ${service.key}` } })).status).toBe(200);
});

it.runIf(linux)('keeps a value the user set, and TAKELINE_HEAP_SETTINGS=off starts it as it was', async () => {
  service = await startWithout({ MALLOC_ARENA_MAX: '4' });
  expect(environ(service.child.pid!)).toContain('MALLOC_ARENA_MAX=4');
  expect(environ(service.child.pid!)).toContain(`MALLOC_MMAP_THRESHOLD_=${SERVICE_HEAP_ENV.MALLOC_MMAP_THRESHOLD_}`);
  await service.stop();
  service = await startWithout({ TAKELINE_HEAP_SETTINGS: 'off' });
  expect(environ(service.child.pid!).filter((v) => v.startsWith('MALLOC_'))).toEqual([]);
});
