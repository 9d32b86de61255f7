import { expect, it } from 'vitest';
import { ProjectKeyTaken, SqlProjectStore } from '../../src/service/storage/project-store';
import { eachBackend } from '../helpers/sql-backends';

// The projects table's contract, the same on SQLite and PostgreSQL.
eachBackend('ProjectStore', (backend) => {
  const store = () => new SqlProjectStore(backend().sql);

  it('creates, finds by id or key, and lists newest first', async () => {
    const projects = store();
    const a = await projects.create('alpha', 'Alpha');
    await new Promise((r) => setTimeout(r, 5));
    const b = await projects.create('beta', 'Beta');
    expect(await projects.find(a.id)).toEqual(a);
    expect(await projects.find('beta')).toEqual(b);
    expect(await projects.find('gamma')).toBeNull();
    expect((await projects.list()).map((p) => p.key)).toEqual(['beta', 'alpha']);
  });

  it('refuses a key in use and keeps the first project', async () => {
    const projects = store();
    const a = await projects.create('alpha', 'Alpha');
    await expect(projects.create('alpha', 'Other')).rejects.toBeInstanceOf(ProjectKeyTaken);
    expect(await projects.list()).toEqual([a]);
  });

  it('finds or creates once, also when two callers race for the same key', async () => {
    const projects = store();
    const [first, second] = await Promise.all([projects.findOrCreate('alpha', 'Alpha'), projects.findOrCreate('alpha', 'Alpha')]);
    expect(first.project.id).toBe(second.project.id);
    expect([first.created, second.created].filter(Boolean)).toHaveLength(1);
    expect(await projects.findOrCreate('alpha', 'Renamed')).toEqual({ project: first.project, created: false });
  });

  it('keeps the vocabulary in the order given', async () => {
    const projects = store();
    const a = await projects.create('alpha', 'Alpha');
    expect(await projects.vocabulary(a.id)).toEqual([]);
    expect(await projects.setVocabulary(a.id, ['Siobhan', 'Takeline'])).toEqual(['Siobhan', 'Takeline']);
    expect(await projects.vocabulary(a.id)).toEqual(['Siobhan', 'Takeline']);
    expect(await projects.vocabulary('missing')).toEqual([]);
  });
});
