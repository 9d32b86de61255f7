import type { Project } from '../../shared/schemas';
import { ConflictError, NotFoundError } from '../errors';
import { ProjectKeyTaken, type ProjectStore } from '../storage/project-store';
import type { SpeakerStore } from '../storage/speaker-store';
import type { AdaptationSummary } from '../speakers/speaker-adaptation';

/** How far each of a project's speakers' voices is adapted, by speaker id (absent: no transform). */
export type AdaptationOf = (projectId: string) => Promise<ReadonlyMap<string, AdaptationSummary>>;

export interface ProjectsDeps {
  projects: ProjectStore;
  speakers: SpeakerStore;
  adaptationOf: AdaptationOf;
}

/** Projects as the team manages them: created, listed, their vocabulary and their known speakers. */
export class Projects {
  constructor(private readonly deps: ProjectsDeps) {}

  async create(key: string, name: string): Promise<Project> {
    try {
      return await this.deps.projects.create(key, name);
    } catch (error) {
      if (error instanceof ProjectKeyTaken) throw new ConflictError(`A project with key "${key}" already exists.`);
      throw error;
    }
  }

  /** Every project, or those among `visible` (the projects a limited caller sees; null: all). */
  async list(visible: readonly string[] | null): Promise<Project[]> {
    const all = await this.deps.projects.list();
    return visible ? all.filter((p) => visible.includes(p.id)) : all;
  }

  /** The project by key or id, or `NotFoundError`. */
  async require(ref: string): Promise<Project> {
    const project = await this.deps.projects.find(ref);
    if (!project) throw new NotFoundError('Project not found.');
    return project;
  }

  /** The project with its known speakers, each with how far its voice is adapted. */
  async detail(project: Project) {
    const adaptation = await this.deps.adaptationOf(project.id);
    return { ...project, speakers: (await this.deps.speakers.projectSpeakers(project.id)).map((s) => ({ ...s, adaptation: adaptation.get(s.id) ?? null })) };
  }

  vocabulary(project: Project): Promise<string[]> {
    return this.deps.projects.vocabulary(project.id);
  }

  setVocabulary(project: Project, terms: string[]): Promise<string[]> {
    return this.deps.projects.setVocabulary(project.id, terms);
  }

  /** The speaker renamed, with its adaptation; `NotFoundError` when the project has no such speaker. */
  async renameSpeaker(project: Project, speakerId: string, name: string) {
    const speaker = await this.deps.speakers.renameProjectSpeaker(project.id, speakerId, name);
    if (!speaker) throw new NotFoundError('Speaker not found in this project.');
    return { ...speaker, adaptation: (await this.deps.adaptationOf(project.id)).get(speaker.id) ?? null };
  }
}
