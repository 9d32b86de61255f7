import { MAX_VOCABULARY_TERMS } from '../../shared/schemas/projects';
import type { Transcript } from '../speech/types';
import type { ProjectStore } from '../storage/project-store';
import type { JobStore } from '../storage/job-store';

/**
 * What a correction teaches (docs/transcription.md, "Corrections teach the recognizer"): words the editor typed that
 * the recognizer's dictionary lacks go into the project's vocabulary, so the project's next recordings can be
 * recognized with them; and the recording's speakers are adapted again, now along the corrected words
 * (speakers/adaptation-job.ts takes corrected lines as supervision).
 */
export interface CorrectionLearning {
  /**
   * Adds the typed words the dictionary lacks to the project's vocabulary (through `projects`, the edit's
   * transaction's store); returns those added (as typed).
   */
  learnWords(projects: Pick<ProjectStore, 'vocabulary' | 'setVocabulary'>, projectId: string, typed: readonly string[]): Promise<string[]>;
  /** Queues the recording's speaker adaptation again (once, however many edits wait), in the edit's transaction. */
  relearn(sessionId: string, within?: JobStore): Promise<void>;
}

/** A typed word as a vocabulary term (the editor's spelling, without the punctuation around it), or null. */
export function typedTerm(word: string): string | null {
  const term = word.replace(/’/g, "'").replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
  // What the recognizer can be given: letters a–z and inner apostrophes (vocabularyWords' rule), 2–40 long.
  return term.length >= 2 && term.length <= 40 && /^[a-z][a-z']*$/.test(term.toLowerCase()) ? term : null;
}

/**
 * The typed words the dictionary lacks and the vocabulary does not hold yet (ignoring case), each once, in
 * order, as many as fit under the vocabulary's limit. A vocabulary term of several words holds each of them.
 */
export function newVocabularyTerms(typed: readonly string[], dictionary: ReadonlySet<string>, vocabulary: readonly string[]): string[] {
  const held = new Set(vocabulary.flatMap((t) => t.toLowerCase().replace(/’/g, "'").split(/\s+/)));
  const out: string[] = [];
  for (const word of typed) {
    const term = typedTerm(word);
    if (!term) continue;
    const key = term.toLowerCase();
    if (dictionary.has(key) || held.has(key)) continue;
    held.add(key);
    out.push(term);
  }
  return out.slice(0, Math.max(0, MAX_VOCABULARY_TERMS - vocabulary.length));
}

/** The words an edit typed: a correction's new line texts, or every word of an aligned script. */
export function typedWords(edit: { op: string; lines?: ReadonlyArray<{ after: string }> }, transcript: Transcript): string[] {
  if (edit.op === 'align_script') return transcript.segments.flatMap((s) => s.words.map((w) => w.word));
  return (edit.lines ?? []).flatMap((l) => l.after.split(/\s+/).filter(Boolean));
}

/** The service's learning from corrections, over the stores it needs. */
export function correctionLearning(deps: {
  /** The recognizer's dictionary (lower-case words); null when there is none here (nothing is learnt). */
  dictionary: () => ReadonlySet<string> | null;
  relearn: (sessionId: string, within?: JobStore) => Promise<void>;
  log?: (line: string) => void;
}): CorrectionLearning {
  return {
    async learnWords(projects, projectId, typed) {
      const dictionary = deps.dictionary();
      if (!dictionary) return [];
      const vocabulary = await projects.vocabulary(projectId);
      const added = newVocabularyTerms(typed, dictionary, vocabulary);
      if (added.length) {
        await projects.setVocabulary(projectId, [...vocabulary, ...added]);
        deps.log?.(`vocabulary: ${added.length} typed word(s) added to project ${projectId}: ${added.join(', ')}`);
      }
      return added;
    },
    relearn: deps.relearn,
  };
}
